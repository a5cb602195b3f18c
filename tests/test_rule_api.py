"""The rule API as rule authors meet it: facts they read, helpers they call."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from lintkit import Diagnostic, Edit, Expect, Fix, Invalid, Project, Related, Rule, Valid
from lintkit.config.locate import ConfigError
from lintkit.core.facts import facts_from_data, facts_to_data
from lintkit.core.index import ProjectIndex, module_name_for
from lintkit.parsing.extract import extract
from lintkit.testing import check_definition, check_example, lint_sources, rule_tests


def test_a_union_annotation_keeps_both_operands() -> None:
    facts = extract("m.py", b"class A:\n    id: UUID | None = None\n", False)
    annotation = facts.bindings[0].annotation
    assert annotation is not None and annotation.kind == "union"
    assert [item.kind for item in annotation.items] == ["ref", "const"]
    assert annotation.items[0].ref == "UUID"
    assert annotation.span == (2, 9, 2, 20)
    decoded = facts_from_data(facts_to_data(facts))
    assert decoded.bindings[0].annotation == annotation


def test_a_name_assigned_a_name_or_a_subscript_of_one_resolves_to_what_it_names() -> None:
    """The index follows ``P = base.Params`` and ``G = base.Params[int]`` to the class,
    in facts as phase 1 made them and as read back (where values stay text)."""
    sources = {
        "pkg/__init__.py": "",
        "pkg/base.py": "class Params:\n    pass\n",
        "pkg/use.py": "from pkg import base\nP = base.Params\nG = base.Params[int]\n"
                      "N = 3\nC = base.Params()\n",
    }
    for read_back in (False, True):
        files = [extract(path, text.encode(), path.endswith("__init__.py"))
                 for path, text in sources.items()]
        if read_back:
            files = [facts_from_data(json.loads(json.dumps(facts_to_data(f)))) for f in files]
        index = ProjectIndex(files, {f.path: module_name_for(f.path, ("",))[0] for f in files})
        assert index.resolve("pkg.use", "P") == "pkg.base.Params"
        assert index.resolve("pkg.use", "G") == "pkg.base.Params"
        assert index.resolve("pkg.use", "N") == "pkg.use.N"  # a value, not an alias
        assert index.resolve("pkg.use", "C") == "pkg.use.C"  # an instance, not the class


def _index(sources: dict[str, str]) -> ProjectIndex:
    files = [extract(path, text.encode(), path.endswith("__init__.py"))
             for path, text in sources.items()]
    return ProjectIndex(files, {f.path: module_name_for(f.path, ("",))[0] for f in files})


def test_a_name_in_an_import_cycle_resolves_the_same_whatever_was_asked_first() -> None:
    # Each module imports X from the other (Python could import neither). Resolution stops
    # at the cycle; what it then names must not depend on which module was asked first.
    sources = {"pkg/__init__.py": "", "pkg/a.py": "from pkg.b import X\n",
               "pkg/b.py": "from pkg.a import X\n"}
    a_first = _index(sources)
    answers = (a_first.resolve("pkg.a", "X"), a_first.resolve("pkg.b", "X"))
    b_first = _index(sources)
    assert (b_first.resolve("pkg.b", "X"), b_first.resolve("pkg.a", "X")) == answers[::-1]
    again = _index(sources)
    assert all(again.resolve("pkg.a", "X") == answers[0] for _ in range(2))


# --- the testing helpers: they must fail when a rule misbehaves ----------------------------------

class NoPrint(Rule):
    """Calls to print.

    ## What it does
    Reports `print(...)`.

    ## Why it matters
    Output belongs to the logger.

    ## Example
    ```python
    print(1)
    ```

    ## How to fix
    Log it (`--fix` deletes the call's name, which is enough for a test).
    """

    code = "TT001"
    name = "no-print"
    summary = "No print calls"
    valid = (Valid("log(1)\n", name="other call"),)
    invalid = (Invalid("x = 1\nprint(x)\n", expect=Expect(2, "TT001", 1, "print call"),
                       fixed="x = 1\nlog(x)\n", name="fixed"),)

    def check(self, project: Project) -> Iterable[Diagnostic]:
        for info in project.index.by_path.values():
            for call in info.facts.calls:
                if call.func == "print" and call.call.func is not None:
                    span = call.call.func.span
                    yield self.diagnostic(info.path, call.span, "print call", fix=Fix(
                        "log instead", (Edit(info.path, *span, "log"),)))


test_no_print = rule_tests(NoPrint)


def test_rule_tests_makes_one_test_per_example_and_one_for_the_definition() -> None:
    (mark,) = test_no_print.pytestmark  # type: ignore[attr-defined]
    assert [param.id for param in mark.args[1]] == [
        "TT001-definition", "TT001-valid-other call", "TT001-invalid-fixed"]


@pytest.mark.parametrize(("example", "complaint"), [
    (Valid("print(1)\n", name="v"), "valid example 'v' of TT001 reported:\n"
                                    "    example.py:1:1: TT001 print call"),
    (Invalid("print(1)\n", expect=Expect(2)), "expected:\n    *:2\n  reported:\n"
                                              "    example.py:1:1: TT001 print call"),
    (Invalid("print(1)\n", expect=Expect(1, message="printf")), "...printf..."),
    (Invalid("print(1)\n", expect=Expect(1, column=3)), "*:1:3"),
    (Invalid("print(1)\n", expect=Expect(1, code="TT002")), "*:1 TT002"),
    (Invalid({"a.py": "print(1)\n"}, expect=Expect(1, path="b.py")), "b.py:1"),
    (Invalid("print(1)\n", expect=(1, 1)), "reported:\n    example.py:1:1"),
    (Invalid("print(1)\n", expect=1, fixed="echo(1)\n", name="f"),
     "after --fix, example.py is\n    | log(1)\n  but 'fixed' says\n    | echo(1)"),
    # 'fixed' for a file the example lacks: said as a mistake in the example, never a
    # FileNotFoundError or a comparison that checks nothing.
    (Invalid({"a.py": "print(1)\n"}, expect=1, fixed="log(1)\n"),
     "an invalid example of TT001: 'fixed' names example.py, which the example's files "
     "(a.py) do not include"),
    (Invalid({"a.py": "print(1)\n"}, expect=1, fixed={"b.py": "log(1)\n"}),
     "'fixed' names b.py, which the example's files (a.py) do not include"),
])
def test_a_misbehaving_example_fails_with_what_was_expected_and_found(
        example: Valid | Invalid, complaint: str) -> None:
    with pytest.raises(AssertionError) as failure:
        check_example(NoPrint, example)
    assert complaint in str(failure.value)


class _PrintFixer(NoPrint):
    """NoPrint, with a fix that replaces the call's name by ``replacement``."""

    replacement = ""

    def check(self, project: Project) -> Iterable[Diagnostic]:
        for info in project.index.by_path.values():
            for call in info.facts.calls:
                if call.func == "print" and call.call.func is not None:
                    yield self.diagnostic(info.path, call.span, "print call", fix=Fix(
                        "fix", (Edit(info.path, *call.call.func.span, self.replacement),)))


class _StubbornFix(_PrintFixer):
    replacement = "(print)"  # the fix keeps the call, so it keeps its diagnostic


class _BrokenFix(_PrintFixer):
    replacement = "print(("


@pytest.mark.parametrize(("rule", "complaint"), [
    # The harness applies fixes as --fix does: once, then says so (it looped ten times,
    # which --fix never does).
    (_StubbornFix, "an invalid example of TT001: --fix would not fix:\n    example.py: the "
                   "fix for TT001 at line 1 did not remove the diagnostic; applied once only"),
    (_BrokenFix, "--fix would not fix:\n    example.py: the fixed source would not parse"),
])
def test_a_fix_that_fix_would_refuse_fails_the_example_with_its_reason(
        rule: type[Rule], complaint: str) -> None:
    with pytest.raises(AssertionError) as failure:
        check_example(rule, Invalid("print(1)\n", expect=1, fixed="log(1)\n"))
    assert complaint in str(failure.value)


def test_expect_may_be_one_expect_or_bare_lines() -> None:
    assert Invalid("", expect=Expect(3)).expect == (Expect(3),)
    assert Invalid("", expect=(2, Expect(5, "X1"))).expect == (Expect(2), Expect(5, "X1"))


def test_check_definition_names_what_is_missing() -> None:
    class Bare(Rule):
        code = "tt1"
        name = "bare"
        summary = ""

    with pytest.raises(AssertionError) as failure:
        check_definition(Bare)
    message = str(failure.value)
    for fragment in ("code must be capitals then digits", "summary must be",
                     "it does not define check", "lacks a '## Why it matters' section",
                     "no valid examples", "no invalid examples"):
        assert fragment in message


def test_lint_sources_runs_a_multi_module_project(tmp_path: Path) -> None:
    found = lint_sources({"pkg/__init__.py": "", "pkg/a.py": "print()\n"}, [NoPrint],
                         root=tmp_path)
    assert [(d.path, d.location.line) for d in found] == [("pkg/a.py", 1)]
    assert (tmp_path / "pkg/a.py").is_file()


class _OptInPrint(NoPrint):
    default_enabled = False


@pytest.mark.parametrize(("config", "found"), [
    ({}, [1]),  # the rules under test run, even one that is off by default
    ({"ignore": ["TT001"]}, []),
    ({"ignore": ["no-print"]}, []),
    ({"select": ["LL000"]}, []),  # select chooses, as on the command line
    ({"select": ["TT"]}, [1]),
    ({"extend-select": ["TT001"], "ignore": ["LL9"]}, [1]),
])
def test_the_helpers_choose_rules_as_the_configuration_says(
        config: dict[str, object], found: list[int]) -> None:
    for rule in (NoPrint, _OptInPrint):
        reported = lint_sources("print(1)\n", [rule], config=config)
        assert [d.location.line for d in reported] == found, (rule, config)


@pytest.mark.parametrize(("config", "complaint"), [
    ({"select": ["NOPE1"]}, "[tool.lion-lint] select: unknown rule 'NOPE1'"),
    ({"bogus": 1}, "[tool.lion-lint] unknown key 'bogus'"),
    ({"max-file-size": "big"}, "max-file-size"),
])
def test_the_helpers_check_the_configuration_as_the_command_line_does(
        config: dict[str, object], complaint: str) -> None:
    with pytest.raises(ConfigError) as failure:
        lint_sources("print(1)\n", [NoPrint], config=config)
    assert complaint in str(failure.value)


def test_related_at_and_source_text(tmp_path: Path) -> None:
    related = Related.at("a.py", (1, 2, 3, 4), "here")
    assert (related.location.path, related.location.line, related.location.end_column,
            related.message) == ("a.py", 1, 4, "here")
    (tmp_path / "a.py").write_text("x = f(\n    1,\n  2)\n")
    project = Project(root=tmp_path, index=ProjectIndex([], {}))
    assert project.source_text("a.py", (1, 5, 3, 5)) == "f(\n    1,\n  2)"
    assert project.source_text("a.py", (2, 5, 2, 6)) == "1"


def test_source_lines_stay_right_for_many_files_read_in_any_order(tmp_path: Path) -> None:
    # The project keeps only the files read last: one read again is read afresh, and an
    # editor buffer still stands in for its file on disk.
    names = [f"m{i}.py" for i in range(100)]
    for i, name in enumerate(names):
        (tmp_path / name).write_text(f"x = {i}\ny = {i}\n")
    project = Project(root=tmp_path, index=ProjectIndex([], {}),
                      overrides={"m7.py": b"edited = True\n"})
    for name in [*names, *reversed(names), names[0], names[50], names[0]]:
        i = int(name[1:-3])
        expected = ["edited = True", ""] if i == 7 else [f"x = {i}", f"y = {i}", ""]
        assert project.source_lines(name) == expected


def test_the_public_api_resolves_lazily() -> None:
    import lintkit

    for name in lintkit.__all__:
        assert getattr(lintkit, name) is not None
    fresh = subprocess.run([sys.executable, "-c", "import sys, lintkit; "
                            "print('lintkit.core.rule' in sys.modules)"],
                           capture_output=True, text=True, timeout=60)
    assert fresh.stdout == "False\n"
