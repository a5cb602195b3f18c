"""Configuration errors exit 2 with one line naming the file, key or path; an internal
error exits 2 with a short message and where to report it, never like a clean run.

Each test runs the real command on a real temporary project.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLEAN = "x = 1\n"
ISSUES_URL = "https://github.com/lion-lint/lion-lint/issues"


def project(root: Path, pyproject: str | bytes, files: dict[str, str] | None = None) -> Path:
    data = pyproject.encode() if isinstance(pyproject, str) else pyproject
    (root / "pyproject.toml").write_bytes(data)
    for relative, text in {"app/__init__.py": "", "app/main.py": CLEAN, **(files or {})}.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "LION_LINT_DEBUG", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-m", "lintkit", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env={**environment, **(env or {})},
                          timeout=300)


def assert_one_line_error(result: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("lion-lint: error: ")
    for needle in needles:
        assert needle in line, line


@pytest.mark.parametrize(("table", "needles"), [
    ("[tool.lion-lint\nselect = []\n", ("invalid TOML", "line 1")),
    ('[tool.lion-lint]\nselect = ["LL001"\n', ("invalid TOML",)),
    ("[tool.lion-lint]\nselect = []\nselect = []\n", ("invalid TOML",)),  # a duplicate key
    ("[tool]\nlion-lint = 3\n", ("[tool.lion-lint] must be a table",)),
    ("[tool.lion-lint]\nexculde = []\n", ("unknown key 'exculde'",)),
    ("[tool.lion-lint.no-such-rule]\nx = 1\n", ("unknown key 'no-such-rule'",)),
    ("[tool.lion-lint.structural-eq]\nauthoritys = []\n", (
        "[tool.lion-lint.structural-eq] unknown key 'authoritys' (expected one of: "
        "authorities, dataclass-decorators, make-dataclass, require-explicit-eq-false)",)),
    # A setting has one TOML spelling; a rule's option takes either, but not both at once.
    ('[tool.lion-lint]\ncache_dir = "x"\n', (
        "[tool.lion-lint] unknown key 'cache_dir' (did you mean 'cache-dir'?)",)),
    ("[tool.lion-lint.structural_eq]\nauthorities = []\n", (
        "unknown key 'structural_eq' (did you mean 'structural-eq'?)",)),
    ("[tool.lion-lint.import-time-registration]\nmax-depth = 3\nmax_depth = 4\n", (
        "[tool.lion-lint.import-time-registration] key 'max-depth' is given twice, as "
        "'max-depth' and 'max_depth': keep one",)),
    # A top-level key a rule reads, given in its own table too: neither may silently win.
    ('[[tool.lion-lint.boundaries]]\nname = "x"\nmodules = ["a"]\nforbid = ["b"]\n'
     '[tool.lion-lint.import-boundary]\nboundaries = []\n', (
         "[tool.lion-lint] key 'boundaries' is also given in "
         "[tool.lion-lint.import-boundary]: keep one",)),
    # What was expected, in TOML's words (arrays, tables), never pydantic's (tuples).
    ('[tool.lion-lint]\nselect = "LL001"\n', (
        'key \'select\': expected an array of strings (got "LL001")',)),
    ("[tool.lion-lint]\nrespect-gitignore = 2\n", (
        "key 'respect-gitignore': expected true or false (got 2)",)),
    ("[tool.lion-lint]\nmax-file-size = -1\n", (
        "key 'max-file-size': expected a value greater than or equal to 0 (got -1)",)),
    ('[tool.lion-lint]\nmax-file-size = "4 MB"\n', (
        'key \'max-file-size\': expected an integer (got "4 MB")',)),
    # No coercion between kinds: pydantic would take true as 1, "false" as a boolean.
    ("[tool.lion-lint]\nmax-file-size = true\n", (
        "key 'max-file-size': expected an integer (got true)",)),
    ('[tool.lion-lint]\nmax-file-size = "7"\n', (
        'key \'max-file-size\': expected an integer (got "7")',)),
    ('[tool.lion-lint]\nrespect-gitignore = "false"\n', (
        'key \'respect-gitignore\': expected true or false (got "false")',)),
    ("[tool.lion-lint]\nrespect-gitignore = 0\n", (
        "key 'respect-gitignore': expected true or false (got 0)",)),
    ('[tool.lion-lint.structural-eq]\nrequire-explicit-eq-false = "no"\n', (
        "[tool.lion-lint.structural-eq] key 'require-explicit-eq-false': expected true or "
        'false (got "no")',)),
    ("[tool.lion-lint]\ncache-dir = 1979-05-27\n", (
        "key 'cache-dir': expected a string (got 1979-05-27)",)),
    ("[tool.lion-lint]\nextend-exclude = [1]\n", (
        "key 'extend-exclude.0': expected a string (got 1)",)),
    ("[tool.lion-lint.structural-eq]\nauthorities = 'a.B'\n", (
        "[tool.lion-lint.structural-eq] key 'authorities': expected an array of strings",)),
    ('[[tool.lion-lint.boundaries]]\nname = "x"\nmodules = ["a"]\n', (
        "[tool.lion-lint] key 'boundaries.0.forbid' is required and missing",)),
    ("[tool.lion-lint.layers]\norder = ['a']\n", ("key 'layers.order'", "at least two layers")),
    ('[tool.lion-lint]\nselect = ["LL999"]\n', (
        "[tool.lion-lint] select: unknown rule 'LL999'",)),
    ('[tool.lion-lint]\nignore = ["LL001", "no-such-rule"]\n', (
        "[tool.lion-lint] ignore: unknown rule 'no-such-rule'",)),
    ('[tool.lion-lint]\nextend-select = ["XY"]\n', (
        "[tool.lion-lint] extend-select: unknown rule 'XY'",)),
    ('[tool.lion-lint]\nplugins = ["no.such.module:Rule"]\n', ("plugin 'no.such.module:Rule'",)),
    (b'[tool.lion-lint]\nselect = ["\xff"]\n', ("cannot read", "utf-8")),
])
def test_bad_configuration_exits_2_naming_file_and_key(
        tmp_path: Path, table: str | bytes, needles: tuple[str, ...]) -> None:
    root = project(tmp_path, table)
    assert_one_line_error(run(".", cwd=root), str(root / "pyproject.toml"), *needles)


@pytest.mark.parametrize(("option", "value"), [
    ("--select", "LL999"), ("--extend-select", "nope"), ("--ignore", "LL0,LL77"),
])
def test_unknown_rules_on_the_command_line_name_the_option(
        tmp_path: Path, option: str, value: str) -> None:
    root = project(tmp_path, "[tool.lion-lint]\n")
    unknown = value.split(",")[-1]
    assert_one_line_error(run(".", option, value, cwd=root), f"{option}: unknown rule '{unknown}'")


def test_missing_config_file_and_missing_paths(tmp_path: Path) -> None:
    root = project(tmp_path, "[tool.lion-lint]\n")
    assert_one_line_error(run("--config", "absent.toml", ".", cwd=root),
                          "config file not found: absent.toml")
    assert_one_line_error(run("--config", "app", ".", cwd=root),
                          "config file is a directory, not a file: app")
    assert_one_line_error(run("app/gone.py", cwd=root), "path does not exist: app/gone.py")
    assert_one_line_error(run("app", "nowhere/", cwd=root), "path does not exist: nowhere")


def test_a_broken_explicit_config_names_that_file(tmp_path: Path) -> None:
    root = project(tmp_path, "[tool.lion-lint]\n")
    other = tmp_path / "ci.toml"
    other.write_text("[tool.lion-lint]\nselct = []\n")
    assert_one_line_error(run("--config", other, ".", cwd=root), str(other), "unknown key 'selct'")


def test_a_broken_nested_project_config_names_its_own_file(tmp_path: Path) -> None:
    root = project(tmp_path, "[tool.lion-lint]\n")
    nested = root / "sub"
    nested.mkdir()
    project(nested, "[tool.lion-lint]\nrespect-gitignore = 'maybe'\n")
    assert_one_line_error(run(".", cwd=root), str(nested / "pyproject.toml"),
                          "key 'respect-gitignore'")


CRASHING_RULE = '''\
from lintkit import Rule
from lintkit.core.diagnostics import Diagnostic


class Crash(Rule):
    """A rule with a bug.

    ## What it does
    Fails.

    ## Why it matters
    It shows how lion-lint reports a bug.

    ## Example
    ```python
    x = 1
    ```

    ## How to fix
    Fix the rule.
    """

    code = "HR900"
    name = "crash"
    summary = "Fails"
    HOW = "raise"

    def check(self, project):
        if self.HOW == "raise":
            raise KeyError("the bug")
        if self.HOW == "garbage":
            return [object()]  # not a Diagnostic: the rule's bug, said as such
        # A stand-in for a bug of lion-lint's own: the engine fails after the rules ran.
        import lintkit.engine.run as engine

        def broken(*args, **kwargs):
            raise AttributeError("an engine bug")

        engine.apply_suppressions = broken
        return []


class Garbage(Crash):
    code = "HR901"
    name = "garbage"
    HOW = "garbage"


class EngineBug(Crash):
    code = "HR902"
    name = "engine-bug"
    HOW = "engine"
'''


@pytest.mark.parametrize(("plugin", "first_line", "where_to_report"), [
    # A project's own rule that raises is its authors' bug, at its line.
    ("crash", "lion-lint: error: rule HR900 (crash) failed: KeyError: 'the bug' "
              "(at tools/crash.py:30)", "a bug in your project's rule module tools.crash"),
    ("garbage", "lion-lint: error: rule HR901 (garbage) failed: TypeError: check yielded "
                "object <object object at", "a bug in your project's rule module tools.crash"),
    # What fails in the engine is lion-lint's to hear about.
    ("engine", "lion-lint: internal error: AttributeError: an engine bug", ISSUES_URL),
])
def test_internal_errors_exit_2_and_say_where_to_report(
        tmp_path: Path, plugin: str, first_line: str, where_to_report: str) -> None:
    spec = {"crash": "tools.crash:Crash", "garbage": "tools.crash:Garbage",
            "engine": "tools.crash:EngineBug"}[plugin]
    root = project(tmp_path, f'[tool.lion-lint]\nplugins = ["{spec}"]\n',
                   {"tools/__init__.py": "", "tools/crash.py": CRASHING_RULE})
    result = run(".", cwd=root)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith(first_line), lines
    assert len(lines) == 2 and where_to_report in lines[1] and "LION_LINT_DEBUG=1" in lines[1]
    assert "Traceback" not in result.stderr
    for fmt in ("json", "sarif", "github"):  # no format prints an empty report
        other = run(".", "--output-format", fmt, cwd=root)
        assert (other.returncode, other.stdout) == (2, "")
    debug = run(".", cwd=root, env={"LION_LINT_DEBUG": "1"})
    assert debug.returncode == 2 and "Traceback" in debug.stderr
    # Set already: the last line points at the traceback, not at the variable.
    last = debug.stderr.splitlines()[-1]
    assert where_to_report in last and last.endswith(" (the traceback is above).")
    assert "LION_LINT_DEBUG" not in debug.stderr
