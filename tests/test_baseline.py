"""The baseline, end to end: each test runs the real command line (click's runner, in process)
on a real temporary project and reads the baseline file it writes."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from lintkit.cli.main import cli
from lintkit.core.builtin import ENGINE_RULES, StaleBaselineEntry
from lintkit.core.rule import DOC_SECTIONS
from lintkit.engine.baseline import fingerprint
from lintkit.testing import lint_sources
from lion_lint.rules.structural_eq import StructuralEq

REGISTRY = """\
HANDLERS = {}


def register(fn):
    HANDLERS[fn.__name__] = fn
    return fn
"""
OPS = """\
from pkg.registry import register


@register
def first(): ...


@register
def second(): ...
"""


def make_project(root: Path, files: dict[str, str] | None = None, table: str = "") -> Path:
    sources = {"pyproject.toml": f'[tool.lion-lint]\nsrc = ["src"]\n{table}',
               "src/pkg/__init__.py": "", "src/pkg/registry.py": REGISTRY, "src/pkg/ops.py": OPS,
               **(files or {})}
    for relative, text in sources.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@contextmanager
def working_directory(path: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def run(*args: str | Path, cwd: Path) -> Result:
    with working_directory(cwd):
        outcome = CliRunner().invoke(cli, [str(a) for a in args], prog_name="lion-lint")
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise outcome.exception
    return Result(outcome.exit_code, outcome.stdout, outcome.stderr)


def entries(path: Path) -> list[dict[str, object]]:
    return json.loads(path.read_text(encoding="utf-8"))["entries"]


def test_write_records_todays_diagnostics_sorted_and_keyed_without_lines(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    written = run("--write-baseline", "lion-baseline.json", cwd=project)
    assert written.returncode == 0, written.stderr
    assert written.stdout == ""
    assert "wrote 2 baseline entries (2 diagnostics)" in written.stderr
    text = (project / "lion-baseline.json").read_text(encoding="utf-8")
    assert text == (
        '{\n  "version": 1,\n  "entries": [\n'
        '    {"path": "src/pkg/ops.py", "code": "LL003", "scope": "pkg.ops.first", '
        '"fingerprint": "@register", "count": 1},\n'
        '    {"path": "src/pkg/ops.py", "code": "LL003", "scope": "pkg.ops.second", '
        '"fingerprint": "@register", "count": 1}\n'
        '  ]\n}\n')
    again = run("--write-baseline", "lion-baseline.json", cwd=project)
    assert again.returncode == 0
    assert (project / "lion-baseline.json").read_text(encoding="utf-8") == text  # stable bytes


def test_apply_hides_recorded_diagnostics_and_reports_new_ones(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    clean = run("--baseline", "b.json", cwd=project)
    assert (clean.returncode, clean.stdout) == (0, "")
    assert "2 diagnostics recorded in the baseline not shown" in clean.stderr
    (project / "src/pkg/more.py").write_text(
        "from pkg.registry import register\n\n\n@register\ndef third(): ...\n", encoding="utf-8")
    new = run("--baseline", "b.json", cwd=project)
    assert new.returncode == 1
    assert new.stdout.splitlines() == [
        "src/pkg/more.py:4:1: LL003 @register registers at import time: sets an item of "
        "HANDLERS (src/pkg/registry.py:1) via register (src/pkg/registry.py:4)"]


def test_an_edit_above_the_violation_does_not_break_the_entry(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    shifted = '"""Operations."""\n\nimport os\n\n\n' + OPS.replace("@register", "@register  ")
    (project / "src/pkg/ops.py").write_text(shifted, encoding="utf-8")
    result = run("--baseline", "b.json", cwd=project)
    assert (result.returncode, result.stdout) == (0, "")


def test_a_second_identical_violation_in_the_same_scope_is_new(tmp_path: Path) -> None:
    twice = ("from pkg.registry import register\n\n\n"
             "class Holder:\n"
             "    @register\n    def a(self): ...\n\n"
             "    register(print)\n")
    project = make_project(tmp_path, {"src/pkg/ops.py": twice})
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    (project / "src/pkg/ops.py").write_text(twice + "    register(print)\n", encoding="utf-8")
    result = run("--baseline", "b.json", cwd=project)
    assert result.returncode == 1
    assert [line.split(": ")[0] for line in result.stdout.splitlines()] == [
        "src/pkg/ops.py:9:5"]  # the later of the two identical ones is the new one


def test_duplicates_are_counted_in_one_entry(tmp_path: Path) -> None:
    repeated = ("from pkg.registry import HANDLERS\n\n"
                "HANDLERS['a'] = print\nHANDLERS['a'] = print\nHANDLERS['a'] = print\n")
    project = make_project(tmp_path, {"src/pkg/ops.py": repeated})
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    assert entries(project / "b.json") == [
        {"path": "src/pkg/ops.py", "code": "LL003", "scope": "pkg.ops",
         "fingerprint": "HANDLERS['a'] = print", "count": 3}]


def test_a_stale_entry_is_reported_at_its_line_in_the_baseline(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    (project / "src/pkg/ops.py").write_text(OPS.replace("@register\ndef second",
                                                        "def second"), encoding="utf-8")
    result = run("--baseline", "b.json", cwd=project)
    assert result.returncode == 1
    assert result.stdout == (
        "b.json:5:5: LL903 baseline entry matches nothing: LL003 in src/pkg/ops.py "
        "(pkg.ops.second): `@register`; remove it or rewrite the baseline with "
        "--write-baseline\n")
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    assert [e["scope"] for e in entries(project / "b.json")] == ["pkg.ops.first"]  # it shrank
    assert run("--baseline", "b.json", cwd=project).returncode == 0


def test_a_count_larger_than_what_remains_is_stale(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/ops.py": "from pkg.registry import HANDLERS\n\n"
                                                        "HANDLERS['a'] = 1\nHANDLERS['a'] = 1\n"})
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    (project / "src/pkg/ops.py").write_text("from pkg.registry import HANDLERS\n\n"
                                            "HANDLERS['a'] = 1\n", encoding="utf-8")
    result = run("--baseline", "b.json", cwd=project)
    assert "LL903 baseline entry records 2 diagnostics but only 1 remain" in result.stdout


def test_a_deleted_file_makes_its_entries_stale(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    (project / "src/pkg/ops.py").unlink()
    result = run("--baseline", "b.json", cwd=project)
    assert result.stdout.count("LL903") == 2


def test_entries_of_files_or_rules_outside_the_run_are_not_stale(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/other.py": "x = 1\n"})
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    only_other = run("--baseline", "b.json", "src/pkg/other.py", cwd=project)
    assert (only_other.returncode, only_other.stdout) == (0, "")
    other_rule = run("--baseline", "b.json", "--select", "LL001,LL903", cwd=project)
    assert (other_rule.returncode, other_rule.stdout) == (0, "")


def test_rewriting_for_part_of_the_project_keeps_the_rest(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/more.py": "from pkg.registry import HANDLERS\n\n"
                                                         "HANDLERS['x'] = 1\n"})
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    (project / "src/pkg/more.py").write_text("x = 1\n", encoding="utf-8")
    assert run("--write-baseline", "b.json", "src/pkg/more.py", cwd=project).returncode == 0
    assert [(e["path"], e["scope"]) for e in entries(project / "b.json")] == [
        ("src/pkg/ops.py", "pkg.ops.first"), ("src/pkg/ops.py", "pkg.ops.second")]


def test_the_configured_baseline_is_relative_to_the_project_root(tmp_path: Path) -> None:
    project = make_project(tmp_path, table='baseline = "lint/baseline.json"\n')
    assert run("--write-baseline", "lint/baseline.json", cwd=project).returncode == 0
    assert entries(project / "lint/baseline.json")[0]["path"] == "../src/pkg/ops.py"
    from_below = run("ops.py", cwd=project / "src/pkg")
    assert (from_below.returncode, from_below.stdout) == (0, "")
    (project / "src/pkg/ops.py").write_text(OPS.replace("@register\ndef second",
                                                        "def second"), encoding="utf-8")
    stale = run(".", cwd=project / "src")
    assert stale.stdout.startswith("../lint/baseline.json:5:5: LL903 ")


def test_a_missing_configured_baseline_names_the_key(tmp_path: Path) -> None:
    project = make_project(tmp_path, table='baseline = "nope.json"\n')
    result = run(".", cwd=project)
    assert result.returncode == 2
    assert "[tool.lion-lint] key 'baseline': file not found" in result.stderr
    assert "--write-baseline" in result.stderr


@pytest.mark.parametrize(("text", "problem"), [
    ("{oops", "invalid JSON"),
    ("[]", "expected a JSON object"),
    ('{"version": 2, "entries": []}', "'version' must be 1"),
    ('{"version": 1, "entries": {}}', "'entries' must be a list"),
    ('{"version": 1, "entries": [3]}', "entry 1 must be an object"),
    ('{"version": 1, "entries": [{"path": "a.py", "code": "LL003", "scope": "", '
     '"fingerprint": "x", "count": 0}]}', "'count' must be a positive integer"),
    ('{"version": 1, "entries": [{"path": "a.py", "code": "LL003", "scope": "", '
     '"fingerprint": "x", "count": 1, "line": 3}]}', "unknown key 'line'"),
    ('{"version": 1, "entries": [{"path": "a.py", "code": "LL003", "scope": "", "count": 1}]}',
     "'fingerprint' must be a string"),
])
def test_a_malformed_baseline_exits_2_with_a_clear_message(tmp_path: Path, text: str,
                                                           problem: str) -> None:
    project = make_project(tmp_path)
    (project / "b.json").write_text(text, encoding="utf-8")
    result = run("--baseline", "b.json", cwd=project)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"lion-lint: error: {project / 'b.json'}")
    assert "malformed baseline" in result.stderr and problem in result.stderr


def test_a_missing_baseline_file_exits_2(tmp_path: Path) -> None:
    result = run("--baseline", "absent.json", cwd=make_project(tmp_path))
    assert result.returncode == 2
    assert "baseline file not found (create it with --write-baseline)" in result.stderr


def test_syntax_errors_are_never_recorded(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/broken.py": "def broken(:\n"})
    written = run("--write-baseline", "b.json", cwd=project)
    assert written.returncode == 0
    assert {e["code"] for e in entries(project / "b.json")} == {"LL003"}
    # Said at once, not discovered at the next run.
    assert written.stderr.splitlines()[1:] == [
        "lion-lint: warning: 1 file could not be checked (LL000) and cannot be baselined; "
        "the next run reports them:",
        "  src/pkg/broken.py:1:12: syntax error: invalid syntax"]
    result = run("--baseline", "b.json", cwd=project)
    assert result.returncode == 1 and "LL000" in result.stdout


def test_editing_the_comment_on_a_recorded_line_keeps_its_entry(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/ops.py": OPS.replace(
        "@register\ndef first", "@register  # TODO: move to the app\ndef first")})
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    assert [e["fingerprint"] for e in entries(project / "b.json")] == ["@register", "@register"]
    (project / "src/pkg/ops.py").write_text(OPS.replace(
        "@register\ndef first", "@register  # moved in #42\ndef first"), encoding="utf-8")
    result = run("--baseline", "b.json", cwd=project)
    assert (result.returncode, result.stdout) == (0, "")


def test_entries_written_with_a_comment_still_match(tmp_path: Path) -> None:
    # Baselines written before fingerprints dropped comments keep working.
    project = make_project(tmp_path)
    entry = '{{"path": "src/pkg/ops.py", "code": "LL003", "scope": "pkg.ops.{}", ' \
            '"fingerprint": "{}", "count": 1}}'
    (project / "b.json").write_text(
        '{"version": 1, "entries": [' + ", ".join([
            entry.format("first", "@register # old note"),
            entry.format("second", "@register # one"),
            entry.format("second", "@register # two")]) + "]}", encoding="utf-8")
    result = run("--baseline", "b.json", cwd=project)
    # first matches; second's two entries count together, and only one diagnostic remains.
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "b.json:1:1: LL903 baseline entry records 2 diagnostics but only 1 remain: LL003 "
        "in src/pkg/ops.py (pkg.ops.second): `@register`; lower its count or rewrite the "
        "baseline with --write-baseline"]


@pytest.mark.parametrize(("line", "expected"), [
    ("    HANDLERS['#a'] = 1  # note", "HANDLERS['#a'] = 1"),
    ('def f(x="#"):  # why', 'def f(x="#"):'),
    ('x = """ # not a comment', 'x = """ # not a comment'),
    ("call(a,   # first", "call(a,"),
    ("@register", "@register"),
])
def test_fingerprints_drop_comments_not_hashes_in_strings(line: str, expected: str) -> None:
    assert fingerprint(line) == expected


def test_the_stale_entry_rule_is_documented() -> None:
    assert StaleBaselineEntry in ENGINE_RULES
    docs = StaleBaselineEntry.docs()
    assert all(docs[section] for section in DOC_SECTIONS)


def test_ll001_keys_an_assignment_in_another_module_by_that_modules_scope() -> None:
    """The baseline keys on Diagnostic.scope: it must name where the offending code is."""
    files = {"pkg/__init__.py": "",
             "pkg/base.py": ("from dataclasses import dataclass\n\n\n"
                             "@dataclass(frozen=True, eq=False)\nclass Params: ...\n\n\n"
                             "@dataclass(frozen=True, eq=False)\nclass Child(Params): ...\n"),
             "pkg/patch.py": ("from pkg.base import Child\n\n\n"
                              "def patch():\n    Child.__eq__ = lambda self, other: True\n\n\n"
                              "Child.__hash__ = None\n")}
    found = lint_sources(files, [StructuralEq], options={"authorities": ["pkg.base.Params"]})
    assert [(d.path, d.scope) for d in found] == [("pkg/patch.py", "pkg.patch.patch"),
                                                  ("pkg/patch.py", "pkg.patch")]


EQ_PARAMS = """\
from dataclasses import dataclass


class Params:
    pass


@dataclass
class Options(Params):
    name: str = ""
"""


def test_rewriting_for_some_rules_keeps_the_entries_of_the_others(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/params.py": EQ_PARAMS},
                           '[tool.lion-lint.structural-eq]\nauthorities = ["pkg.params.Params"]\n')
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    before = entries(project / "b.json")
    assert {e["code"] for e in before} == {"LL001", "LL003"}
    (project / "src/pkg/ops.py").write_text(OPS.replace("@register\ndef second",
                                                        "def second"), encoding="utf-8")

    assert run("--write-baseline", "b.json", "--select", "LL003", cwd=project).returncode == 0

    after = entries(project / "b.json")
    assert [e for e in after if e["code"] == "LL001"] == [e for e in before if e["code"] == "LL001"]
    assert [e["scope"] for e in after if e["code"] == "LL003"] == ["pkg.ops.first"]
    assert run("--baseline", "b.json", cwd=project).returncode == 0
    assert run("--write-baseline", "b.json", "--ignore", "LL003", cwd=project).returncode == 0
    assert entries(project / "b.json") == after


def test_a_baseline_is_never_written_from_the_changed_lines_alone(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert run("--write-baseline", "b.json", cwd=project).returncode == 0
    recorded = (project / "b.json").read_bytes()

    refused = run("--write-baseline", "b.json", "--changed-since", "HEAD", cwd=project)

    assert refused.returncode == 2
    assert "cannot be combined with --changed-since" in refused.stderr
    assert (project / "b.json").read_bytes() == recorded
