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
