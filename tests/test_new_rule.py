"""``lion-lint new-rule NAME``: a local rule and its test, which passes as generated, and which
lion-lint runs once the plugins list names it. Real commands on real temporary projects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lintkit.cli.scaffold import ScaffoldError, codes_taken, next_code, rule_name


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env=environment, timeout=300)


def lion_lint(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run("-m", "lintkit", *args, cwd=cwd)


def make_project(root: Path, table: str = "[tool.lion-lint]\n") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(f'[project]\nname = "demo"\nversion = "0"\n\n{table}')
    (root / "app").mkdir()
    (root / "app/__init__.py").write_text("")
    (root / "app/deploy.py").write_text("from os import system as sh\n\n\ndef go():\n"
                                        "    sh('make deploy')\n")
    return root


def test_the_scaffold_passes_its_own_test_and_runs_once_configured(tmp_path: Path) -> None:
    project = make_project(tmp_path / "demo")
    made = lion_lint("new-rule", "no-shell-out", cwd=project / "app")  # from a subdirectory
    assert made.returncode == 0, made.stderr
    assert made.stdout.splitlines()[:4] == [
        "created ../tools/__init__.py",
        "created ../tools/lint/__init__.py",
        "created ../tools/lint/no_shell_out.py",
        "created ../tools/lint/test_no_shell_out.py",
    ]
    assert 'plugins = ["tools.lint.no_shell_out:NoShellOut"]' in made.stdout

    # The generated test passes as generated, however pytest is started.
    from_root = run("-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "tools/lint/test_no_shell_out.py", cwd=project)
    assert from_root.returncode == 0, from_root.stdout + from_root.stderr
    assert "5 passed" in from_root.stdout
    from_elsewhere = run("-m", "pytest", "-q", "-p", "no:cacheprovider",
                         project / "tools/lint", cwd=tmp_path)
    assert from_elsewhere.returncode == 0, from_elsewhere.stdout + from_elsewhere.stderr

    # Not run until the plugins list names it; then it is.
    assert lion_lint(".", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text(
        '[tool.lion-lint]\nplugins = ["tools.lint.no_shell_out:NoShellOut"]\n')
    result = lion_lint(".", cwd=project)
    assert (result.returncode, result.stdout) == (
        1, "app/deploy.py:5:5: HR001 call to os.system\n")
    assert "no-shell-out" in lion_lint("rules", cwd=project).stdout


def test_the_next_code_is_free_and_nothing_is_overwritten(tmp_path: Path) -> None:
    project = make_project(tmp_path / "demo")
    assert lion_lint("new-rule", "first", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text(
        '[tool.lion-lint]\nplugins = ["tools.lint.first:First"]\n')
    second = lion_lint("new-rule", "Second_Rule", "--package", "lint_rules", cwd=project)
    assert second.returncode == 0, second.stderr
    text = (project / "lint_rules/second_rule.py").read_text()
    assert 'code = "HR002"' in text and 'name = "second-rule"' in text
    assert "class SecondRule(Rule):" in text
    assert ('plugins = ["tools.lint.first:First", "lint_rules.second_rule:SecondRule"]'
            in second.stdout)
    again = lion_lint("new-rule", "first", "--code", "HR010", cwd=project)
    assert again.returncode == 2
    assert "tools/lint/first.py already exists; nothing written" in again.stderr
    assert not (project / "tools/lint/test_first.py").read_text().count("HR010")


def test_a_rule_scaffolded_but_not_yet_configured_keeps_its_code(tmp_path: Path) -> None:
    project = make_project(tmp_path / "demo")
    assert lion_lint("new-rule", "first", cwd=project).returncode == 0
    second = lion_lint("new-rule", "second", cwd=project)  # before step 2 for the first
    assert second.returncode == 0, second.stderr
    assert 'code = "HR002"' in (project / "tools/lint/second.py").read_text()
    (project / "pyproject.toml").write_text(
        '[tool.lion-lint]\nplugins = ["tools.lint.first:First", "tools.lint.second:Second"]\n')
    assert lion_lint(".", cwd=project).returncode == 1  # both load: no code clash


@pytest.mark.parametrize(("code", "configured", "message"), [
    ("LL001", False, "'LL001': the LL prefix is lion-lint's own"),
    ("LL999", False, "'LL999': the LL prefix is lion-lint's own"),
    ("HR001", False, "code HR001 is already used by tools/lint/first.py; nothing written"),
    ("HR001", True, "code HR001 is already used by rule HR001 (first); nothing written"),
])
def test_a_code_in_use_is_refused(tmp_path: Path, code: str, configured: bool,
                                  message: str) -> None:
    project = make_project(tmp_path / "demo")
    assert lion_lint("new-rule", "first", cwd=project).returncode == 0
    if configured:
        (project / "pyproject.toml").write_text(
            '[tool.lion-lint]\nplugins = ["tools.lint.first:First"]\n')
    result = lion_lint("new-rule", "other", "--code", code, cwd=project)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not (project / "tools/lint/other.py").exists()


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file under ``root`` with its bytes (pyproject.toml's among them), and every
    directory (None): what a refused new-rule must leave as it was. Bytecode is left out:
    Python, not new-rule, writes it when the configured plugins are imported."""
    return {path.relative_to(root).as_posix(): path.read_bytes() if path.is_file() else None
            for path in sorted(root.rglob("*")) if "__pycache__" not in path.parts}


def assert_refused(project: Path, args: tuple[str, ...], message: str) -> None:
    before = tree(project)
    result = lion_lint(*args, cwd=project)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert message in result.stderr and "nothing written" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert tree(project) == before


@pytest.mark.parametrize(("name", "message"), [
    ("select", "rule name 'select' is a [tool.lion-lint] setting; choose another name"),
    ("plugins", "rule name 'plugins' is a [tool.lion-lint] setting"),
    ("ignore", "rule name 'ignore' is a [tool.lion-lint] setting"),
    ("cache-dir", "rule name 'cache-dir' is a [tool.lion-lint] setting"),
    ("Extend_Select", "rule name 'extend-select' is a [tool.lion-lint] setting"),
    ("structural-eq", "rule name 'structural-eq' is the name of rule LL001 (structural-eq)"),
    ("layers", "rule name 'layers' is the [tool.lion-lint] key that rule LL005 "
               "(layer-order) reads"),
    ("boundaries", "rule name 'boundaries' is the [tool.lion-lint] key that rule LL004 "
                   "(import-boundary) reads"),
])
def test_a_name_that_is_already_a_key_of_the_table_is_refused(tmp_path: Path, name: str,
                                                              message: str) -> None:
    """[tool.lion-lint.<name>] would be the rule's options and that key's value at once."""
    project = make_project(tmp_path / "demo")
    assert_refused(project, ("new-rule", name), message)


def test_the_name_of_a_configured_project_rule_is_refused(tmp_path: Path) -> None:
    project = make_project(tmp_path / "demo")
    assert lion_lint("new-rule", "first", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text(
        '[tool.lion-lint]\nplugins = ["tools.lint.first:First"]\n')
    # Another package: no file of that name stands in the way, only the name.
    assert_refused(project, ("new-rule", "first", "--package", "house"),
                   "rule name 'first' is the name of rule HR001 (first)")


@pytest.mark.parametrize(("files", "table", "message"), [
    ({"src/tools/__init__.py": ""}, "",
     "package 'tools.lint': 'tools' is already src/tools, in the import root src; a 'tools' "
     "at the project root would shadow it or be shadowed by it"),
    ({"src/tools.py": ""}, "", "'tools' is already src/tools.py, in the import root src"),
    ({"tools/__init__.py": "", "src/tools/__init__.py": ""}, "",
     "'tools' is already src/tools, in the import root src"),
    ({"lib/tools/lint/__init__.py": ""}, 'src = [".", "lib"]\n',
     "'tools' is already lib/tools, in the import root lib"),
])
def test_a_package_another_import_root_has_is_refused(tmp_path: Path, files: dict[str, str],
                                                      table: str, message: str) -> None:
    project = make_project(tmp_path / "demo", f"[tool.lion-lint]\n{table}")
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text)
    assert_refused(project, ("new-rule", "no-print"), message)


@pytest.mark.parametrize(("files", "args", "message"), [
    ({"tools.py": ""}, (),
     "the package tools/ that new-rule would make would shadow the module tools.py"),
    ({"tools/__init__.py": "", "tools/lint.py": ""}, (),
     "the package tools/lint/ that new-rule would make would shadow the module tools/lint.py"),
    ({"app/checks.py": ""}, ("--package", "app.checks"),
     "the package app/checks/ that new-rule would make would shadow the module app/checks.py"),
    ({}, ("--package", "json.rules"),
     "package 'json.rules': 'json' is a module of Python's standard library"),
    ({}, ("--package", "logging"), "'logging' is a module of Python's standard library"),
    ({}, ("--package", "click.rules"),  # lion-lint's own dependency: installed everywhere
     "package 'click.rules': 'click' is an installed package ("),
    ({"tools/lint/no_print/__init__.py": ""}, (),
     "tools/lint/no_print already exists (module tools.lint.no_print)"),
    ({"tools/lint/test_no_print/__init__.py": ""}, (),
     "tools/lint/test_no_print already exists (module tools.lint.test_no_print)"),
])
def test_a_module_the_new_files_would_shadow_is_refused(tmp_path: Path, files: dict[str, str],
                                                        args: tuple[str, ...],
                                                        message: str) -> None:
    project = make_project(tmp_path / "demo")
    for relative, text in files.items():
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text(text)
    assert_refused(project, ("new-rule", "no-print", *args), message)


@pytest.mark.parametrize("table", ["", 'src = ["./", "src"]\n'])
def test_the_project_root_package_new_rule_writes_into_is_no_clash(tmp_path: Path,
                                                                   table: str) -> None:
    """A tools/ package of the project's own, a src/ layout holding other packages, and a
    tools.py outside every import root are all fine."""
    project = make_project(tmp_path / "demo", f"[tool.lion-lint]\n{table}")
    for relative in ("tools/__init__.py", "tools/deploy.py", "src/demo/__init__.py",
                     "scripts/tools.py"):
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text("")
    made = lion_lint("new-rule", "no-print", cwd=project)
    assert made.returncode == 0, made.stderr
    assert (project / "tools/lint/no_print.py").is_file()
    assert (project / "tools/deploy.py").read_text() == ""


def test_codes_taken_reads_the_package_and_the_rules(tmp_path: Path) -> None:
    package = tmp_path / "tools/lint"
    package.mkdir(parents=True)
    (package / "a.py").write_text('class A(Rule):\n    code = "HR007"\n    name = "a"\n')
    (package / "b.py").write_text("class B(Rule):\n    code: ClassVar[str] = 'XY12'\n")
    (package / "notes.py").write_text('code = "HR009"  # module level: not a rule\n')

    class Configured:
        code, name = "HR001", "first"

    assert codes_taken([Configured], tmp_path) == {  # type: ignore[list-item]
        "HR001": "rule HR001 (first)", "HR007": "tools/lint/a.py", "XY12": "tools/lint/b.py"}


def test_outside_any_project_nothing_is_written(tmp_path: Path) -> None:
    result = lion_lint("new-rule", "no-shell-out", cwd=tmp_path)
    assert result.returncode == 2
    assert "no pyproject.toml at or above" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (("new-rule", "9lives"), "'9lives' is not a rule name"),
    (("new-rule", "ok-name", "--code", "hr-1"), "'HR-1' is not a rule code"),
    (("new-rule", "ok-name", "--package", "tools.2lint"), "'tools.2lint' is not a dotted package"),
    (("new-rule", "import"), "module name 'import', which Python cannot import"),
])
def test_bad_arguments_exit_2_and_write_nothing(tmp_path: Path, args: tuple[str, ...],
                                                message: str) -> None:
    project = make_project(tmp_path / "demo")
    result = lion_lint(*args, cwd=project)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not (project / "tools").exists()


def test_names_and_codes() -> None:
    assert rule_name("No_Print") == rule_name("no print") == "no-print"
    with pytest.raises(ScaffoldError):
        rule_name("no--print")

    assert next_code({"HR001", "HR003"}) == "HR002"
    assert next_code([]) == "HR001"
