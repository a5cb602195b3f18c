"""The example project's local rules end to end: `lion-lint examples/house_rules` runs them
from its plugins list (they are not lion-lint's rules), and --fix applies the safe fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "house_rules"

EXPECTED = """\
examples/house_rules/src/houseapp/events.py:13:5: ADR0021 identity field Event.id is annotated \
as uuid.UUID and has default_factory=uuid4, which makes a native uuid.UUID; ADR-0021: a uuid \
identity is a str in Python
examples/house_rules/src/houseapp/events.py:18:5: ADR0021 identity field Message.id has \
default_factory=ids.new_uuid, and houseapp.core.ids.new_uuid returns a native uuid.UUID; \
ADR-0021: a uuid identity is a str in Python
examples/house_rules/src/houseapp/graph/edge.py:13:9: ADR0001 Edge.__init__ takes **kwargs but \
does not pass them to super().__init__(...), so inherited Element fields (id, created_at, \
metadata) given to Edge(...) are lost; ADR-0001: a subclass keeps the Element envelope
"""


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-m", "lintkit", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=environment, timeout=300)


def test_the_example_rules_fire_from_the_repository_root() -> None:
    result = run("examples/house_rules", "--no-cache", cwd=REPO)
    assert (result.returncode, result.stdout) == (1, EXPECTED), result.stderr


def test_json_carries_the_related_locations_and_the_fix() -> None:
    result = run("--output-format", "json", "--no-cache", ".", cwd=EXAMPLE)
    event, message, edge = json.loads(result.stdout)["diagnostics"]
    assert [r["message"] for r in event["related"]] == ["Element is a base here"]
    assert [e["replacement"] for e in event["fix"]["edits"]] == [
        "lambda: str(uuid4())", "str"]
    assert message["fix"] is None
    assert message["related"][1]["path"] == "src/houseapp/core/ids.py"
    assert edge["related"][0]["message"] == "the parent initializer is called here without **kwargs"


def test_the_rules_are_the_projects_not_lion_lints() -> None:
    assert "ADR0021" in run("rules", cwd=EXAMPLE).stdout
    assert "ADR0021" not in run("rules", cwd=REPO / "examples" / "clean").stdout
    assert run("examples/clean", "--no-cache", cwd=REPO).returncode == 0


def test_fix_rewrites_the_identity_and_leaves_the_rest_reported(tmp_path: Path) -> None:
    copy = tmp_path / "house_rules"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__", ".*cache*"))
    fixed = run("--fix", "--no-cache", ".", cwd=copy)
    assert fixed.returncode == 1
    assert [line.split(": ")[1].split()[0] for line in fixed.stdout.splitlines()] == [
        "ADR0021", "ADR0001"]
    assert "    id: str = Field(default_factory=lambda: str(uuid4()), frozen=True)\n" in (
        copy / "src/houseapp/events.py").read_text()
