"""Local rules named in ``[tool.lion-lint] plugins``: loaded explicitly, run like shipped rules,
and every broken configuration exits 2 with a message naming the plugin.

Each test runs the real command on a real temporary project.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

RULE = '''\
from lintkit import Rule, RuleOptions


class Options(RuleOptions):
    banned: tuple[str, ...] = ("print",)


class NoBannedCalls(Rule):
    """Calls to banned functions.

    ## What it does
    Reports calls to the functions listed in `banned`.

    ## Why it matters
    Because the house says so.

    ## Example
    ```python
    print("x")
    ```

    ## How to fix
    Log instead.
    """

    code = "HR001"
    name = "no-banned-calls"
    summary = "No calls to banned functions"
    Options = Options
    default_enabled = DEFAULT_ENABLED

    def check(self, project):
        for info in project.index.by_path.values():
            for call in info.facts.calls:
                target = call.func and (project.index.resolve(info.name, call.func, call.scope)
                                        or call.func)
                if target in self.options.banned:
                    yield self.diagnostic(info.path, call.span, f"{target} is banned")
'''


def make_project(root: Path, plugins: list[str], files: dict[str, str] | None = None,
                 extra_toml: str = "", default_enabled: bool = True) -> Path:
    listed = ", ".join(f'"{p}"' for p in plugins)
    sources = {
        "pyproject.toml": f"[tool.lion-lint]\nplugins = [{listed}]\n{extra_toml}",
        "tools/__init__.py": "",
        "tools/lint/__init__.py": "",
        "tools/lint/calls.py": RULE.replace("DEFAULT_ENABLED", str(default_enabled)),
        "app/__init__.py": "",
        "app/main.py": "def run():\n    print('hi')\n",
        **(files or {}),
    }
    for relative, text in sources.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-m", "lintkit", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=environment, timeout=120)


GOOD = "tools.lint.calls:NoBannedCalls"


# --- a good plugin ---------------------------------------------------------------------------

def test_a_plugin_runs_with_the_project_root_importable(tmp_path: Path) -> None:
    project = make_project(tmp_path, [GOOD])
    result = run(".", cwd=project)
    assert (result.returncode, result.stdout) == (1, "app/main.py:2:5: HR001 print is banned\n")


def test_a_plugin_reads_its_table_and_a_bad_key_names_it(tmp_path: Path) -> None:
    project = make_project(tmp_path, [GOOD], extra_toml=(
        '\n[tool.lion-lint.no-banned-calls]\nbanned = ["input"]\n'))
    assert run(".", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text(
        f'[tool.lion-lint]\nplugins = ["{GOOD}"]\n\n[tool.lion-lint.no-banned-calls]\nbaned = []\n')
    result = run(".", cwd=project)
    assert result.returncode == 2
    assert "[tool.lion-lint.no-banned-calls] unknown key 'baned'" in result.stderr


def test_select_ignore_and_default_enabled_apply_to_plugins(tmp_path: Path) -> None:
    project = make_project(tmp_path, [GOOD])
    assert run(".", "--ignore", "HR001", cwd=project).returncode == 0
    assert run(".", "--select", "LL", cwd=project).returncode == 0
    assert run(".", "--select", "no-banned-calls", cwd=project).returncode == 1
    off = make_project(tmp_path / "off", [GOOD], default_enabled=False)
    assert run(".", cwd=off).returncode == 0
    assert run(".", "--extend-select", "HR", cwd=off).returncode == 1


def test_rules_and_explain_show_the_current_projects_plugins(tmp_path: Path) -> None:
    project = make_project(tmp_path, [GOOD])
    listed = run("rules", cwd=project / "app")  # any directory of the project
    assert listed.returncode == 0 and "HR001" in listed.stdout
    assert "no-banned-calls" in listed.stdout
    explained = run("explain", "HR001", cwd=project)
    assert explained.returncode == 0, explained.stderr
    assert explained.stdout.startswith("# HR001 no-banned-calls\n")
    assert f"A local rule: plugin `{GOOD}`." in explained.stdout
    assert "## How to fix\n\nLog instead." in explained.stdout
    elsewhere = run("rules", cwd=tmp_path.parent)
    assert "HR001" not in elsewhere.stdout
    assert "HR001" in run("rules", "--config", project / "pyproject.toml",
                          cwd=tmp_path.parent).stdout


def test_only_the_named_module_is_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    touch = f"open({str(marker)!r} + '-' + __name__, 'w').close()\n"
    project = make_project(tmp_path / "p", [GOOD], files={
        "tools/lint/other.py": touch,  # a sibling rule module nobody named
        "app/main.py": touch + "print('hi')\n",  # the linted code
    })
    assert run(".", cwd=project).returncode == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("executed")) == []


def test_each_project_of_a_run_loads_its_own_plugin_package(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.lion-lint]\n")
    first = make_project(tmp_path / "a", [GOOD])
    second = make_project(tmp_path / "b", [GOOD], extra_toml=(
        '\n[tool.lion-lint.no-banned-calls]\nbanned = ["input"]\n'))
    (second / "tools/lint/calls.py").write_text(
        RULE.replace("DEFAULT_ENABLED", "True").replace('"HR001"', '"HR777"'))
    (second / "app/main.py").write_text("input()\nprint()\n")
    result = run(".", cwd=tmp_path)
    assert result.stdout == ("a/app/main.py:2:5: HR001 print is banned\n"
                             "b/app/main.py:1:1: HR777 input is banned\n"), result.stderr
    assert first.is_dir()


def test_a_plugin_rule_that_raises_is_blamed_on_its_module_and_line(tmp_path: Path) -> None:
    broken = RULE.replace("DEFAULT_ENABLED", "True").replace(
        "        for info in project.index.by_path.values():",
        "        raise KeyError('banned')\n        for info in project.index.by_path.values():")
    project = make_project(tmp_path, ["tools.lint.calls:NoBannedCalls"],
                           files={"tools/lint/calls.py": broken})
    result = run(".", cwd=project)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "lion-lint: error: rule HR001 (no-banned-calls) failed: KeyError: 'banned' "
        "(at tools/lint/calls.py:33)",
        "This is a bug in your project's rule module tools.lint.calls (set LION_LINT_DEBUG=1 "
        "for the traceback)."]


def _rule_failing_with(line: str, *, where: str = "check") -> str:
    """RULE with ``line`` first in its check (or in a new __init__)."""
    rule = RULE.replace("DEFAULT_ENABLED", "True")
    if where == "init":
        return rule.replace("    def check(self, project):",
                            f"    def __init__(self, options):\n        {line}\n\n"
                            "    def check(self, project):")
    return rule.replace("        for info in project.index.by_path.values():",
                        f"        {line}\n        for info in project.index.by_path.values():")


def _failure(tmp_path: Path, rule: str, *args: str) -> subprocess.CompletedProcess[str]:
    project = make_project(tmp_path, ["tools.lint.calls:NoBannedCalls"],
                           files={"tools/lint/calls.py": rule})
    result = run(".", *args, cwd=project)
    assert (result.returncode, result.stdout) == (2, ""), (result.stdout, result.stderr)
    assert "This is a bug in your project's rule module tools.lint.calls" in result.stderr
    return result


def test_a_plugin_rule_that_exits_cleanly_is_still_a_failure(tmp_path: Path) -> None:
    """sys.exit(0) in check once ended the run with status 0 and no output at all."""
    rule = _rule_failing_with('yield self.diagnostic("app/main.py", (1, 1, 1, 6), "x")\n'
                              "        import sys; sys.exit(0)")
    for args in ((), ("--output-format", "json")):
        result = _failure(tmp_path / "-".join(("p", *args)), rule, *args)
        assert result.stderr.startswith(
            "lion-lint: error: rule HR001 (no-banned-calls) failed: SystemExit: 0 (at "
            "tools/lint/calls.py:34)"), result.stderr


def test_a_plugin_rule_whose_constructor_raises_is_blamed_on_it(tmp_path: Path) -> None:
    result = _failure(tmp_path, _rule_failing_with("raise LookupError('no db')", where="init"))
    assert result.stderr.startswith("lion-lint: error: rule HR001 (no-banned-calls) failed: "
                                    "LookupError: no db (at tools/lint/calls.py:"), result.stderr


def test_what_a_plugin_rule_reports_must_be_a_diagnostic_a_report_can_print(
        tmp_path: Path) -> None:
    cases = {
        "yield None": "TypeError: check yielded NoneType None, not a Diagnostic",
        'yield "oops"': "TypeError: check yielded str 'oops', not a Diagnostic",
        'yield self.diagnostic(str(project.root / "app/main.py"), (1, 1, 1, 6), "x")':
            "ValueError: a diagnostic's path is '/",
        'yield self.diagnostic("app/main.py", (0, 0, 0, 0), "x")':
            "ValueError: a diagnostic in app/main.py spans (0, 0) to (0, 0): lines and "
            "columns count from 1",
        'yield self.diagnostic("app/main.py", (2, 1, 1, 6), "x")':
            "ValueError: a diagnostic in app/main.py spans (2, 1) to (1, 6)",
        'yield self.diagnostic("app/main.py", (1, 1, 1, 6), "x", severity="info")':
            "ValueError: a diagnostic's severity is 'info'",
        # --fix writes one file at a time: a fix over two was advertised, then never applied.
        'from lintkit import Edit, Fix; yield self.diagnostic("app/main.py", (1, 1, 1, 6), '
        '"x", fix=Fix("f", (Edit("app/main.py", 1, 1, 1, 1, "#"), '
        'Edit("app/b.py", 1, 1, 1, 1, "#"))))':
            "ValueError: a fix in app/main.py edits several files (app/b.py, app/main.py)",
    }
    for number, (line, expected) in enumerate(cases.items()):
        result = _failure(tmp_path / str(number), _rule_failing_with(line))
        assert expected in result.stderr, (line, result.stderr)


def test_a_plugin_rule_with_a_severity_no_report_shows_is_refused(tmp_path: Path) -> None:
    rule = RULE.replace("DEFAULT_ENABLED", "True").replace(
        '    code = "HR001"', '    severity = "info"\n    code = "HR001"')
    project = make_project(tmp_path, ["tools.lint.calls:NoBannedCalls"],
                           files={"tools/lint/calls.py": rule})
    assert_config_error(project, "is not a complete rule: severity must be 'error' or "
                                 "'warning' (got 'info')")


# --- broken plugins: exit 2, naming the plugin ------------------------------------------------

def assert_config_error(project: Path, *fragments: str,
                        commands: tuple[tuple[str, ...], ...] = ((".",),)) -> None:
    for args in commands:
        result = run(*args, cwd=project)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert result.stderr.startswith("lion-lint: error: ")
        assert str(project / "pyproject.toml") in result.stderr
        for fragment in fragments:
            assert fragment in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


def test_a_missing_module(tmp_path: Path) -> None:
    project = make_project(tmp_path, ["tools.lint.nope:Rule"])
    assert_config_error(project,
                        "plugin 'tools.lint.nope:Rule' failed to import: ModuleNotFoundError",
                        "No module named 'tools.lint.nope'",
                        commands=((".",), ("rules",), ("explain", "LL001"),
                                  ("new-rule", "x")))
    # No "(at <frozen importlib._bootstrap>:...)": the import machinery is no place of the
    # project's, however its pseudo-file name resolves.
    assert run(".", cwd=project).stderr.rstrip().endswith("No module named 'tools.lint.nope'")


def test_a_module_that_raises_names_the_plugin_and_its_line(tmp_path: Path) -> None:
    project = make_project(tmp_path, ["tools.lint.broken:Rule"], files={
        "tools/lint/broken.py": "import os\n\nraise RuntimeError('no config')\n"})
    assert_config_error(project, "plugin 'tools.lint.broken:Rule' failed to import: "
                        "RuntimeError: no config (at tools/lint/broken.py:3)")


def test_a_module_with_a_syntax_error(tmp_path: Path) -> None:
    project = make_project(tmp_path, ["tools.lint.typo:Rule"], files={
        "tools/lint/typo.py": "def f(:\n    pass\n"})
    assert_config_error(project, "plugin 'tools.lint.typo:Rule' failed to import: SyntaxError")


def test_a_missing_class(tmp_path: Path) -> None:
    assert_config_error(make_project(tmp_path, ["tools.lint.calls:Missing"]),
                        "plugin 'tools.lint.calls:Missing': module 'tools.lint.calls'",
                        "has no attribute 'Missing'")


def test_something_that_is_not_a_rule(tmp_path: Path) -> None:
    project = make_project(tmp_path, ["tools.lint.misc:helper", "tools.lint.misc:Thing"],
                           files={"tools/lint/misc.py": "def helper():\n    pass\n\n"
                                                        "class Thing:\n    pass\n"})
    assert_config_error(project, "plugin 'tools.lint.misc:helper' is not a rule: it is a "
                        "function, not a subclass of lintkit.Rule")
    (project / "pyproject.toml").write_text('[tool.lion-lint]\nplugins = ["tools.lint.misc:Thing"]\n')
    assert_config_error(project, "plugin 'tools.lint.misc:Thing' is not a rule: it is a class "
                        "Thing")


def test_an_incomplete_rule_says_what_it_lacks(tmp_path: Path) -> None:
    project = make_project(tmp_path, ["tools.lint.half:Half"], files={
        "tools/lint/half.py": textwrap.dedent("""\
            from lintkit import Rule

            class Half(Rule):
                name = "Half Rule"
        """)})
    assert_config_error(project, "plugin 'tools.lint.half:Half' is not a complete rule",
                        "code must be capitals then digits", "name must be kebab-case",
                        "summary must be", "it does not define check")


def test_a_spec_without_a_class(tmp_path: Path) -> None:
    assert_config_error(make_project(tmp_path, ["tools.lint.calls"]),
                        "'tools.lint.calls' is not 'module:Class'")


def test_a_code_taken_by_a_shipped_rule(tmp_path: Path) -> None:
    project = make_project(tmp_path, ["tools.lint.dup:Dup"], files={
        "tools/lint/dup.py": "from tools.lint.calls import NoBannedCalls\n\n"
                             "class Dup(NoBannedCalls):\n"
                             "    code = 'LL001'\n    name = 'dup'\n"})
    assert_config_error(project, "plugin 'tools.lint.dup:Dup' reuses code LL001, already used "
                        "by lion-lint's rule LL001 (structural-eq)")


def test_two_plugins_with_one_code_or_name(tmp_path: Path) -> None:
    twin = {"tools/lint/twin.py": "from tools.lint.calls import NoBannedCalls\n\n"
                                  "class Twin(NoBannedCalls):\n    name = 'twin'\n\n"
                                  "class Namesake(NoBannedCalls):\n    code = 'HR002'\n"}
    project = make_project(tmp_path, [GOOD, "tools.lint.twin:Twin"], files=twin)
    assert_config_error(project, "plugin 'tools.lint.twin:Twin' reuses code HR001, already "
                        f"used by plugin '{GOOD}'")
    (project / "pyproject.toml").write_text(
        f'[tool.lion-lint]\nplugins = ["{GOOD}", "tools.lint.twin:Namesake"]\n')
    assert_config_error(project, "plugin 'tools.lint.twin:Namesake' is named "
                        f"'no-banned-calls', which is the name of plugin '{GOOD}'")


def test_a_plugin_named_like_a_setting(tmp_path: Path) -> None:
    project = make_project(tmp_path, ["tools.lint.clash:Clash"], files={
        "tools/lint/clash.py": "from tools.lint.calls import NoBannedCalls\n\n"
                               "class Clash(NoBannedCalls):\n    name = 'exclude'\n"})
    assert_config_error(project, "plugin 'tools.lint.clash:Clash' is named 'exclude', which "
                        "is a [tool.lion-lint] setting")


def test_a_plugin_named_like_a_key_a_shipped_rule_reads(tmp_path: Path) -> None:
    """[tool.lion-lint.layers] would be the plugin's options and LL005's layers at once."""
    project = make_project(tmp_path, ["tools.lint.clash:Clash"], files={
        "tools/lint/clash.py": "from tools.lint.calls import NoBannedCalls\n\n"
                               "class Clash(NoBannedCalls):\n    name = 'layers'\n"})
    assert_config_error(project, "plugin 'tools.lint.clash:Clash' is named 'layers', which "
                        "is the [tool.lion-lint] key that lion-lint's rule LL005 (layer-order) "
                        "reads; choose another name")


def test_a_package_imported_from_elsewhere_is_not_silently_reused(tmp_path: Path) -> None:
    """In one process (a test suite, say), a project's plugin package must not be confused
    with a same-named package someone else imported."""
    elsewhere = make_project(tmp_path / "elsewhere", [GOOD])
    project = make_project(tmp_path / "project", [GOOD])
    script = textwrap.dedent(f"""\
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(elsewhere)!r})
        import tools.lint.calls
        from lintkit.cli.plugins import load_plugins, project_config
        from lintkit.config.locate import ConfigError
        try:
            load_plugins(project_config(Path({str(project)!r})))
        except ConfigError as error:
            print(error)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert f"module 'tools' is already imported from {elsewhere}" in result.stdout, result.stderr
