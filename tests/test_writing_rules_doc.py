"""docs/writing-rules.md must stay true: its worked example, built from the page alone, passes
its own tests and prints what the page shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = (Path(__file__).resolve().parents[1] / "docs" / "writing-rules.md").read_text()


def block_after(heading: str, language: str) -> str:
    """The first fenced block of ``language`` after the line containing ``heading``."""
    found = re.search(re.escape(heading) + r".*?```" + language + r"\n(.*?)\n```", DOC, re.S)
    assert found, f"docs/writing-rules.md: no {language} block after {heading!r}"
    return found.group(1) + "\n"


def build_project(root: Path) -> Path:
    files = {
        "pyproject.toml": block_after("### Configure", "toml"),
        "src/shop/__init__.py": "",
        "src/shop/events/base.py": block_after("`src/shop/events/base.py`:", "python"),
        "src/shop/events/__init__.py": block_after("`src/shop/events/__init__.py`:", "python"),
        "src/shop/orders.py": block_after("`src/shop/orders.py`:", "python"),
        "tools/__init__.py": "",
        "tools/lint/__init__.py": "",
        "tools/lint/frozen_events.py": block_after("`tools/lint/frozen_events.py`", "python"),
        "tools/lint/test_frozen_events.py": block_after("`tools/lint/test_frozen_events.py`:",
                                                        "python"),
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          env=environment, timeout=300)


def test_the_worked_example_passes_its_tests_and_prints_what_the_page_shows(
        tmp_path: Path) -> None:
    project = build_project(tmp_path / "shop")
    tests = run("-m", "pytest", "-q", "-p", "no:cacheprovider", "tools/lint", cwd=project)
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "6 passed" in tests.stdout  # as the page says

    shown = re.search(r"\$ lion-lint\n(.*?)\n\$ echo \$\?\n1\n", DOC, re.S)
    assert shown, "the page shows lion-lint's output and exit status"
    result = run("-m", "lintkit", "--no-cache", cwd=project)
    assert (result.returncode, result.stdout) == (1, shown.group(1) + "\n"), result.stderr

    fixed = run("-m", "lintkit", "--fix", "--no-cache", cwd=project)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "@dc.dataclass(frozen=True)\nclass OrderShipped(Event):" in (
        project / "src/shop/orders.py").read_text()


def test_the_pages_plugin_error_is_the_one_lion_lint_prints(tmp_path: Path) -> None:
    project = build_project(tmp_path / "shop")
    rule = project / "tools/lint/frozen_events.py"
    rule.write_text(rule.read_text().replace("class FrozenEvents(Rule):",
                                             "class FrozenEvents(Rul):"))
    result = run("-m", "lintkit", "--no-cache", cwd=project)
    shown = re.search(r"lion-lint: error: /path/to/shop/pyproject.toml: (.*)\n", DOC)
    assert shown and result.returncode == 2
    assert result.stderr == f"lion-lint: error: {project}/pyproject.toml: {shown.group(1)}\n"
