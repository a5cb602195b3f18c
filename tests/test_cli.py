"""The CLI contract of the foundation: exit codes, formats, paths, selection, config errors.

Each test runs the real command (``python -m lintkit``) on a real temporary project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from integration_support import BASE, PYPROJECT

BAD = """\
from dataclasses import dataclass

from pkg.base import Params


@dataclass(frozen=True)
class Bad(Params):
    pass
"""


def make_project(root: Path, extra: dict[str, str] | None = None,
                 pyproject: str = PYPROJECT) -> Path:
    files = {"pyproject.toml": pyproject, "src/pkg/__init__.py": "", "src/pkg/base.py": BASE,
             "src/pkg/bad.py": BAD, **(extra or {})}
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(env or {})
    return subprocess.run([sys.executable, "-m", "lintkit", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=environment, input=stdin,
                          timeout=120)


def test_exit_1_with_concise_lines_then_0_when_clean(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = run(".", cwd=project)
    assert result.returncode == 1, result.stderr
    assert result.stdout == (
        "src/pkg/bad.py:7:7: LL001 Bad descends from Params but its @dataclass does not pass "
        "eq=False, so a generated __eq__ replaces the structural one\n")
    (project / "src/pkg/bad.py").write_text(BAD.replace("frozen=True", "frozen=True, eq=False"))
    clean = run(".", cwd=project)
    assert (clean.returncode, clean.stdout) == (0, "")


def test_check_is_the_default_command_and_paths_default_to_cwd(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert run(cwd=project).stdout == run("check", ".", cwd=project).stdout != ""


def test_a_directory_named_like_a_command_is_told_how_to_be_checked(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"rules/local.py": BAD})
    listed = run("rules", cwd=project)
    assert listed.returncode == 0 and "LL001" in listed.stdout  # the command still wins
    assert "run `lion-lint check rules`" in listed.stderr
    checked = run("check", "rules", cwd=project)
    assert checked.returncode == 1 and checked.stdout.startswith("rules/local.py:7:7: LL001 ")
    assert "note:" not in checked.stderr
    # No such directory: no note.
    assert "note:" not in run("rules", cwd=project / "src").stderr


def test_paths_print_relative_to_the_current_directory(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    inside = run(".", cwd=project / "src" / "pkg")
    assert inside.stdout.startswith("bad.py:7:7: LL001 ")
    outside = run(project.name, cwd=project.parent)
    assert outside.stdout.startswith(f"{project.name}/src/pkg/bad.py:7:7: LL001 ")


def test_syntax_error_is_ll000_at_its_line_and_the_run_goes_on(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/broken.py": "x = 1\n\ndef f(:\n    pass\n"})
    result = run(".", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("src/pkg/bad.py:7:7: LL001 ")
    assert lines[1].startswith("src/pkg/broken.py:3:")
    assert " LL000 syntax error" in lines[1]


def test_output_is_deterministic_and_sorted(tmp_path: Path) -> None:
    extra = {f"src/pkg/m{i}.py": BAD.replace("Bad", f"Bad{i}") for i in range(5)}
    project = make_project(tmp_path, extra)
    first = run(".", "--output-format", "json", cwd=project).stdout
    second = run(".", "--output-format", "json", cwd=project).stdout
    assert first == second
    paths = [(d["path"], d["line"], d["column"]) for d in json.loads(first)["diagnostics"]]
    assert paths == sorted(paths) and len(paths) == 6


def test_json_schema(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    document = json.loads(run(".", "--output-format", "json", cwd=project).stdout)
    assert document["version"] == 1 and document["tool"] == "lion-lint"
    (diagnostic,) = document["diagnostics"]
    assert {k: diagnostic[k] for k in ("path", "line", "column", "end_line", "end_column",
                                        "code", "name", "severity")} == {
        "path": "src/pkg/bad.py", "line": 7, "column": 7, "end_line": 7, "end_column": 10,
        "code": "LL001", "name": "structural-eq", "severity": "error"}
    assert diagnostic["related"] == [{"path": "src/pkg/base.py", "line": 5, "column": 7,
                                      "end_line": 5, "end_column": 13,
                                      "message": "Params is a base here"}]
    assert diagnostic["fix"]["edits"][0]["replacement"] == ", eq=False"
    assert document["summary"]["diagnostics"] == 1


def test_select_and_ignore_by_code_or_name(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    assert run(".", "--ignore", "LL001", cwd=project).returncode == 0
    assert run(".", "--ignore", "structural-eq", cwd=project).returncode == 0
    assert run(".", "--select", "LL000", cwd=project).returncode == 0
    assert run(".", "--select", "structural-eq", cwd=project).returncode == 1
    unknown = run(".", "--select", "LL999", cwd=project)
    assert unknown.returncode == 2 and "unknown rule 'LL999'" in unknown.stderr


@pytest.mark.parametrize("option", ["--select", "--extend-select", "--ignore"])
@pytest.mark.parametrize("value", ["", " ", ","])
def test_an_empty_rule_selector_is_an_error_naming_the_option(
        tmp_path: Path, option: str, value: str) -> None:
    # `--select "$RULES"` with RULES unset must not quietly run the configured rules.
    result = run(".", option, value, cwd=make_project(tmp_path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"lion-lint: error: {option} {value!r} names no rule (give codes, "
                             "code prefixes or names; see `lion-lint rules`)\n")


def test_config_select_and_explicit_config_file(tmp_path: Path) -> None:
    project = make_project(tmp_path, pyproject=PYPROJECT.replace(
        '[tool.lion-lint]\n', '[tool.lion-lint]\nignore = ["LL001"]\n'))
    assert run(".", cwd=project).returncode == 0
    other = tmp_path / "other.toml"
    other.write_text(PYPROJECT)
    result = run("--config", other, project / "src", cwd=project)
    assert result.returncode == 1 and "LL001" in result.stdout


@pytest.mark.parametrize(("table", "message"), [
    ('[tool.lion-lint]\nselct = ["LL001"]\n', "unknown key 'selct'"),
    ('[tool.lion-lint]\nrespect-gitignore = "yes please"\n', "key 'respect-gitignore'"),
    ('[tool.lion-lint.structural-eq]\nauthorites = []\n', "unknown key 'authorites'"),
    ('[tool.lion-lint.structural-eq]\nrequire-explicit-eq-false = 3\n',
     "key 'require-explicit-eq-false'"),
    ('[tool.lion-lint\nsrc = 1\n', "invalid TOML"),
])
def test_bad_config_exits_2_naming_file_and_key(tmp_path: Path, table: str, message: str) -> None:
    project = make_project(tmp_path, pyproject=table)
    result = run(".", cwd=project)
    assert result.returncode == 2
    assert message in result.stderr and "pyproject.toml" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_missing_path_and_missing_config_exit_2(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    missing = run("nope/", cwd=project)
    assert missing.returncode == 2 and "path does not exist: nope" in missing.stderr
    no_config = run("--config", "absent.toml", ".", cwd=project)
    assert no_config.returncode == 2 and "absent.toml" in no_config.stderr


def test_clean_refuses_a_missing_path_as_check_does(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    run(".", cwd=project)
    assert (project / ".lion-lint-cache").is_dir()
    for command in (["check"], ["clean"]):
        missing = run(*command, "src", "nope", cwd=project)
        assert (missing.returncode, missing.stdout) == (2, "")
        assert missing.stderr == "lion-lint: error: path does not exist: nope\n"
    # The typo did not reach the enclosing project's cache.
    assert (project / ".lion-lint-cache").is_dir()


@pytest.mark.parametrize("command", [[], ["clean"], ["rules"], ["explain", "LL001"],
                                     ["imports", "pkg.bad"], ["new-rule", "no-print"]])
def test_a_config_naming_a_directory_is_told_it_is_one(tmp_path: Path, command: list[str]) -> None:
    project = make_project(tmp_path)
    result = run(*command, "--config", "src", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "lion-lint: error: config file is a directory, not a file: src\n"
    # The project's directory itself: its pyproject.toml is what was meant.
    result = run(*command, "--config", ".", cwd=project)
    assert result.returncode == 2
    assert result.stderr == ("lion-lint: error: config file is a directory, not a file: . "
                             "(did you mean --config pyproject.toml?)\n")


def test_named_file_reports_only_that_file_but_uses_the_whole_index(tmp_path: Path) -> None:
    child = BAD.replace("Bad(Params)", "Child(Bad)").replace("from pkg.base import Params",
                                                             "from pkg.bad import Bad")
    project = make_project(tmp_path, {"src/pkg/child.py": child})
    result = run("src/pkg/child.py", cwd=project)
    assert result.stdout.splitlines() == [
        "src/pkg/child.py:7:7: LL001 Child descends from Params (via Bad) but its @dataclass "
        "does not pass eq=False, so a generated __eq__ replaces the structural one"]


NOT_CHECKED = ("lion-lint: error: not a file lion-lint checks: {} (it checks *.py files and "
               "those the include setting matches)")


def test_a_named_file_lion_lint_does_not_check_is_an_error(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"notes.txt": "hi\n", "src/pkg/stub.pyi": "x: int\n"})
    for named in ("notes.txt", "src/pkg/stub.pyi"):
        result = run(named, cwd=project)
        assert (result.returncode, result.stdout) == (2, ""), result.stderr
        assert result.stderr.splitlines() == [NOT_CHECKED.format(named)]
    # Beside a file that is checked, it still is: no report, one line per such file.
    mixed = run("src/pkg/bad.py", "notes.txt", "src/pkg/stub.pyi", cwd=project)
    assert (mixed.returncode, mixed.stdout) == (2, "")
    assert mixed.stderr.splitlines() == [NOT_CHECKED.format("notes.txt"),
                                         NOT_CHECKED.format("src/pkg/stub.pyi")]


def test_a_named_file_include_takes_is_checked_even_if_excluded(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/stub.pyi": BAD}, pyproject=PYPROJECT.replace(
        "[tool.lion-lint]\n", '[tool.lion-lint]\ninclude = ["*.py", "*.pyi"]\n'
                              'extend-exclude = ["*.pyi"]\n'))
    # Like a named .py file: excluded from the walk, but checked when named.
    result = run("src/pkg/stub.pyi", cwd=project)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("src/pkg/stub.pyi:7:7: LL001 ")


def test_force_exclude_skips_named_files_lion_lint_does_not_check(tmp_path: Path) -> None:
    # pre-commit names every staged Python file: excluded ones, and scripts without a .py
    # suffix (by their shebang). --force-exclude leaves them out without failing the hook.
    project = make_project(tmp_path, {"src/pkg/vendored.py": "x = 1\n",
                                      "scripts/tool": "#!/usr/bin/env python3\nx = 1\n"},
                           pyproject=PYPROJECT.replace("[tool.lion-lint]\n", (
                               '[tool.lion-lint]\nextend-exclude = ["src/pkg/vendored.py"]\n')))
    beside = run("--force-exclude", "scripts/tool", "src/pkg/vendored.py", "src/pkg/base.py",
                 cwd=project)
    assert (beside.returncode, beside.stdout, beside.stderr) == (0, "", "")
    # Nothing at all checked: said, though the run passes.
    alone = run("--force-exclude", "scripts/tool", "src/pkg/vendored.py", cwd=project)
    assert (alone.returncode, alone.stdout) == (0, "")
    assert alone.stderr == ("lion-lint: warning: nothing checked: --force-exclude left out "
                            "every named file (excluded by the configuration, or not a Python "
                            "file)\n")
    # Without --force-exclude the script named is an error, the excluded file checked.
    assert run("scripts/tool", cwd=project).stderr == NOT_CHECKED.format("scripts/tool") + "\n"
    assert run("src/pkg/vendored.py", cwd=project).returncode == 0
    one = run("src/pkg/vendored.py", "--output-format", "full", "--color", "never", cwd=project)
    assert one.stdout == "All checks passed (1 file).\n"


def test_a_named_directory_without_python_files_is_warned_about(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"docs/index.md": "# docs\n", "src/pkg/gen/x.py": "x = 1\n"},
                           pyproject=PYPROJECT.replace("[tool.lion-lint]\n", (
                               '[tool.lion-lint]\nextend-exclude = ["src/pkg/gen"]\n')))
    (project / "empty").mkdir()
    result = run("docs", "empty", "src/pkg/gen", "--output-format", "full", "--color", "never",
                 cwd=project)
    assert (result.returncode, result.stdout) == (0, "All checks passed (0 files).\n")
    assert result.stderr.splitlines() == [
        f"lion-lint: warning: no Python files to check under {name}"
        for name in ("docs", "empty", "src/pkg/gen")]
    # A warning, not a verdict: the status is the run's; --quiet drops it.
    beside = run("docs", "src", cwd=project)
    assert beside.returncode == 1 and beside.stdout.startswith("src/pkg/bad.py:7:7: LL001 ")
    assert beside.stderr == "lion-lint: warning: no Python files to check under docs\n"
    assert run("-q", "docs", "src", cwd=project).stderr == ""
    # A directory whose files are in nested projects is not empty.
    make_project(project / "sub" / "inner")
    assert run("sub", cwd=project).stderr == ""


def test_paths_under_a_dot_directory_are_checked_when_named(tmp_path: Path) -> None:
    project = make_project(tmp_path, {".scripts/tool.py": BAD})
    for target in (".scripts/tool.py", ".scripts", "./.scripts/tool.py"):
        result = run(target, "--no-cache", cwd=project)
        assert result.returncode == 1, (target, result.stderr)
        assert result.stdout.startswith(".scripts/tool.py:7:7: LL001 "), target


def test_nested_projects_use_their_own_configuration(tmp_path: Path) -> None:
    make_project(tmp_path / "a")
    make_project(tmp_path / "b", pyproject=PYPROJECT.replace(
        "[tool.lion-lint]\n", '[tool.lion-lint]\nignore = ["LL001"]\n'))
    (tmp_path / "pyproject.toml").write_text("[tool.lion-lint]\n")
    result = run(".", cwd=tmp_path)
    assert result.stdout.splitlines()[0].startswith("a/src/pkg/bad.py:7:7: LL001")
    assert "b/src" not in result.stdout


@pytest.mark.parametrize("above", [None, "[project]\nname = 'monorepo'\n"])
def test_nested_projects_are_their_own_without_a_configuration_above(
        tmp_path: Path, above: str | None) -> None:
    # No [tool.lion-lint] above the projects (no pyproject.toml at all, or one without
    # the table): each still runs with its own configuration, none under LionAGI's
    # defaults as one project with the others.
    make_project(tmp_path / "a")
    make_project(tmp_path / "b", pyproject=PYPROJECT.replace(
        "[tool.lion-lint]\n", '[tool.lion-lint]\nignore = ["LL001"]\n'))
    if above is not None:
        (tmp_path / "pyproject.toml").write_text(above)
    for where, target in ((tmp_path, "."), (tmp_path.parent, tmp_path.name)):
        result = run(target, "--no-cache", cwd=where)
        prefix = "" if target == "." else f"{target}/"
        assert result.stdout.splitlines() == [
            f"{prefix}a/src/pkg/bad.py:7:7: LL001 Bad descends from Params but its @dataclass "
            "does not pass eq=False, so a generated __eq__ replaces the structural one"]


def test_waivers_unused_and_reasonless_are_reported(tmp_path: Path) -> None:
    waived = BAD.replace("class Bad(Params):",
                         "class Bad(Params):  # lion-lint: ignore[LL001] -- reviewed in #12")
    extra = {"src/pkg/other.py": "x = 1  # lion-lint: ignore[LL001] -- nothing here\n"
                                 "y = 2  # lion-lint: ignore[LL001]\n"}
    project = make_project(tmp_path, extra)
    (project / "src/pkg/bad.py").write_text(waived)
    result = run(".", cwd=project)
    assert result.stdout.splitlines() == [
        "src/pkg/other.py:1:8: LL901 unused suppression: no LL001 diagnostic on the lines it covers",
        "src/pkg/other.py:2:8: LL902 suppression comment lacks a reason after '--'; it "
        "suppresses nothing"]
    shown = run(".", "--show-suppressed", "--select", "LL001", cwd=project)
    assert shown.stdout.strip().endswith("[suppressed: reviewed in #12]")


def test_waivers_take_rule_names_and_report_unknown_rules(tmp_path: Path) -> None:
    by_name = BAD.replace("class Bad(Params):",
                          "class Bad(Params):  # lion-lint: ignore[structural-eq] -- reviewed")
    typo = BAD.replace("class Bad(Params):",
                       "class Typo(Params):  # lion-lint: ignore[LL0001, LL001] -- reviewed")
    project = make_project(tmp_path, {"src/pkg/bad.py": by_name, "src/pkg/typo.py": typo})
    result = run(".", cwd=project)
    # The name waives LL001 like its code; the unknown code is reported, the known one works.
    assert result.stdout.splitlines() == [
        "src/pkg/typo.py:7:22: LL902 suppression comment names no known rule: LL0001; that "
        "part suppresses nothing"]


def test_the_summary_counts_diagnostics_then_waivers(tmp_path: Path) -> None:
    waived = BAD.replace("class Bad(Params):",
                         "class Waived(Params):  # lion-lint: ignore[LL001] -- reviewed in #12")
    project = make_project(tmp_path, {"src/pkg/waived.py": waived})
    result = run(".", "--output-format", "full", "--color", "never", cwd=project)
    assert result.stdout.splitlines()[-1] == (
        "Found 1 diagnostic in 1 file (1 fixable with --fix); 1 suppressed with a reason "
        "(--show-suppressed lists them)")
    (project / "src/pkg/bad.py").unlink()
    clean = run(".", "--output-format", "full", "--color", "never", cwd=project)
    assert clean.stdout.splitlines()[-1] == (
        "All checks passed (3 files). 1 suppressed with a reason (--show-suppressed lists them)")


def test_the_code_frame_shows_tabs_and_places_the_carets_under_the_name(tmp_path: Path) -> None:
    tabbed = BAD.replace("@dataclass(frozen=True)\nclass Bad(Params):\n    pass\n",
                         "if True:\n\t@dataclass(frozen=True)\n\tclass Bad(Params):\n\t\tpass\n")
    project = make_project(tmp_path, {"src/pkg/bad.py": tabbed})
    result = run(".", "--output-format", "full", "--color", "never", cwd=project)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("src/pkg/bad.py:8:8: LL001")  # the column counts the tab once
    assert lines[1:5] == [" 7 │     @dataclass(frozen=True)",
                          " 8 │     class Bad(Params):",
                          "   │           ^^^",
                          " 9 │         pass"]


def test_rules_piped_keep_their_whole_summaries(tmp_path: Path) -> None:
    listed = run("rules", cwd=make_project(tmp_path)).stdout  # a pipe, not a terminal
    assert ("Params/Spec/Meta subclasses must keep the structural eq (eq=False, no own "
            "__eq__/__hash__)") in listed
    assert "…" not in listed


def test_colour_follows_flags_and_environment(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    always = run(".", "--output-format", "full", "--color", "always", cwd=project)
    never = run(".", "--output-format", "full", "--color", "never", cwd=project)
    forced = run(".", "--output-format", "full", cwd=project, env={"FORCE_COLOR": "1"})
    plain = run(".", "--output-format", "full", cwd=project, env={"NO_COLOR": "1",
                                                                  "FORCE_COLOR": "1"})
    assert "\x1b[" in always.stdout and "\x1b[" in forced.stdout
    # An explicit --color always wins over NO_COLOR, colours and all (not bold alone).
    insisted = run(".", "--output-format", "full", "--color", "always", cwd=project,
                   env={"NO_COLOR": "1"})
    assert "\x1b[1;31mLL001" in insisted.stdout and insisted.stdout == always.stdout
    assert "\x1b[" not in never.stdout and "\x1b[" not in plain.stdout
    assert "│ @dataclass(frozen=True)" in never.stdout  # the code frame
    assert "Found 1 diagnostic in 1 file (1 fixable with --fix)" in never.stdout


def test_full_is_the_default_on_a_terminal(tmp_path: Path) -> None:
    pty = pytest.importorskip("pty")
    project = make_project(tmp_path)
    pid, fd = pty.fork()
    if pid == 0:  # the child: run lion-lint with stdout on the terminal
        os.chdir(project)
        os.environ["NO_COLOR"] = "1"
        os.execv(sys.executable, [sys.executable, "-m", "lintkit", "."])
    output = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 1
    assert b"[structural-eq]" in output and b"Found 1 diagnostic" in output


def test_rules_and_explain(tmp_path: Path) -> None:
    listing = run("rules", cwd=tmp_path)
    assert listing.returncode == 0
    assert "LL001" in listing.stdout and "structural-eq" in listing.stdout
    by_code = run("explain", "LL001", cwd=tmp_path)
    by_name = run("explain", "structural-eq", cwd=tmp_path)
    assert by_code.stdout == by_name.stdout
    for heading in ("## What it does", "## Why it matters", "## Example", "## How to fix"):
        assert heading in by_code.stdout
    unknown = run("explain", "LL999", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown rule" in unknown.stderr


def test_console_script_and_version() -> None:
    result = subprocess.run(["lion-lint", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("lion-lint, version ")


def test_gitignored_and_excluded_files_are_not_linted(tmp_path: Path) -> None:
    extra = {"src/pkg/gen/__init__.py": "", "src/pkg/gen/bad2.py": BAD.replace("Bad", "Bad2"),
             "src/pkg/vendored.py": BAD.replace("Bad", "Bad3"), ".gitignore": "src/pkg/gen/\n"}
    project = make_project(tmp_path, extra, pyproject=PYPROJECT.replace(
        "[tool.lion-lint]\n", '[tool.lion-lint]\nextend-exclude = ["src/pkg/vendored.py"]\n'))
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    result = run(".", cwd=project)
    assert [line.split(":")[0] for line in result.stdout.splitlines()] == ["src/pkg/bad.py"]
    (project / "pyproject.toml").write_text(PYPROJECT.replace(
        "[tool.lion-lint]\n", "[tool.lion-lint]\nrespect-gitignore = false\n"))
    unignored = run(".", cwd=project)
    assert [line.split(":")[0] for line in unignored.stdout.splitlines()] == [
        "src/pkg/bad.py", "src/pkg/gen/bad2.py", "src/pkg/vendored.py"]
