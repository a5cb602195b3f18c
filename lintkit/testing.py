"""Test rules the way lion-lint runs them: on a small project written as a dict of sources.

One call turns a rule's declared examples into pytest tests::

    from lintkit.testing import rule_tests
    from tools.lint.frozen_events import FrozenEvents

    test_frozen_events = rule_tests(FrozenEvents)

Each valid example must report nothing; each invalid one exactly its ``Expect`` list (and,
when it declares ``fixed``, turn into that source under ``--fix``). A further case checks
that the rule is complete and documented. Every example runs the real engine (LibCST, the
project index, waivers) on real files in a temporary directory, so a cross-module example
is a dict of paths to sources::

    Invalid({"app/events.py": BASE, "app/orders.py": CHILD}, expect=Expect(4, path="app/orders.py"))

``lint_sources`` runs rules on such a project directly, for tests an example cannot express.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintkit.config.load import config_from_table
from lintkit.core.builtin import ENGINE_RULES
from lintkit.core.diagnostics import Diagnostic
from lintkit.core.rule import (
    DOC_SECTIONS,
    Expect,
    Files,
    Invalid,
    Rule,
    Valid,
    rule_definition_problems,
)
from lintkit.engine.run import (ProjectResult, RunOptions, instantiate, known_config_keys,
                                lint_loaded, select_rules)

__all__ = [
    "RuleCase",
    "check_definition",
    "check_example",
    "lint_sources",
    "rule_cases",
    "rule_example_params",
    "rule_tests",
]

DEFAULT_MODULE = "example.py"


def _sources(files: Files) -> dict[str, str]:
    return {DEFAULT_MODULE: files} if isinstance(files, str) else dict(files)


def write_project(root: Path, files: Files) -> None:
    for relative, source in _sources(files).items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")


def _lint_root(root: Path, rules: Sequence[type[Rule]], options: Mapping[str, Any] | None,
               config: Mapping[str, Any] | None) -> ProjectResult:
    table: dict[str, Any] = {"respect-gitignore": False, **(config or {})}
    if options:
        table[rules[0].name] = dict(options)
    available = [*ENGINE_RULES, *rules]
    # The configuration is checked as the command line checks it (an unknown key or a
    # wrong type is a ConfigError), and chooses rules as it does, except that the rules
    # under test are on unless `select` says otherwise or `ignore` turns them off.
    loaded = config_from_table(root, None, table, known_keys=known_config_keys(available))
    under_test = RunOptions(extend_select=() if loaded.settings.select is not None
                            else tuple(rule.name for rule in rules))
    active = instantiate(select_rules(available, loaded, under_test), loaded)
    return lint_loaded(loaded, available, active, [root], RunOptions())


def lint_sources(
    files: Files,
    rules: Sequence[type[Rule]],
    *,
    options: Mapping[str, Any] | None = None,
    config: Mapping[str, Any] | None = None,
    root: Path | None = None,
) -> list[Diagnostic]:
    """Lint ``files`` (one module's source, or project-relative path -> source) with
    ``rules``. ``options`` is the table of the first rule; ``config`` the rest of
    ``[tool.lion-lint]``. Returns the sorted diagnostics."""
    if root is None:
        with tempfile.TemporaryDirectory(prefix="lintkit-") as directory:
            return lint_sources(files, rules, options=options, config=config,
                                root=Path(directory))
    write_project(root, files)
    return _lint_root(root, rules, options, config).diagnostics


# --- checking one example ----------------------------------------------------------------------

def _shown(diagnostics: Sequence[Diagnostic]) -> str:
    if not diagnostics:
        return "    (nothing)"
    return "\n".join(f"    {d.path}:{d.location.line}:{d.location.column}: {d.code} {d.message}"
                     for d in diagnostics)


def _wanted(expect: Sequence[Expect]) -> str:
    lines = []
    for e in expect:
        parts = [f"{e.path or '*'}:{e.line}" + (f":{e.column}" if e.column is not None else "")]
        if e.code is not None:
            parts.append(e.code)
        if e.message is not None:
            parts.append(f"...{e.message}...")
        lines.append("    " + " ".join(parts))
    return "\n".join(lines) or "    (nothing)"


def _matches(expected: Expect, diagnostic: Diagnostic) -> bool:
    location = diagnostic.location
    return (location.line == expected.line
            and (expected.code is None or diagnostic.code == expected.code)
            and (expected.column is None or location.column == expected.column)
            and (expected.message is None or expected.message in diagnostic.message)
            and (expected.path is None or location.path == expected.path))


def _label(rule: type[Rule], example: Valid | Invalid) -> str:
    kind = "valid" if isinstance(example, Valid) else "invalid"
    return f"{kind} example {example.name!r} of {rule.code}" if example.name else \
        f"{'a' if kind == 'valid' else 'an'} {kind} example of {rule.code}"


def check_example(rule: type[Rule], example: Valid | Invalid) -> None:
    """Assert that a rule's example behaves as declared (the failure shows what was expected
    and what was reported)."""
    with tempfile.TemporaryDirectory(prefix="lintkit-") as directory:
        root = Path(directory)
        write_project(root, example.files)
        result = _lint_root(root, [rule], example.options, example.config)
        found = result.diagnostics
        where = _label(rule, example)
        if isinstance(example, Valid):
            assert not found, f"{where} reported:\n{_shown(found)}"
            return
        expect: tuple[Expect, ...] = example.expect  # type: ignore[assignment]  # normalised
        ok = len(found) == len(expect) and all(map(_matches, expect, found))
        assert ok, f"{where}\n  expected:\n{_wanted(expect)}\n  reported:\n{_shown(found)}"
        if example.fixed is not None:
            _check_fixed(root, rule, example, result, where)


def _check_fixed(root: Path, rule: type[Rule], example: Invalid, result: ProjectResult,
                 where: str) -> None:
    # --fix's own passes (fix, lint again, repeat) on the example's files, so tests see
    # what users get; a fix --fix would refuse fails the example with the reason it gives.
    from lintkit.engine.fix import Disk, fix_until_stable

    def lint() -> list[ProjectResult]:
        return [_lint_root(root, [rule], example.options, example.config)]

    _, outcome = fix_until_stable(lint, [result], Disk())
    refused = [f"{Path(os.path.relpath(path, root.resolve())).as_posix()}: {reason}"
               for path, reason in sorted(outcome.refused.items())]
    assert not refused, f"{where}: --fix would not fix:\n" + "\n".join(
        f"    {line}" for line in refused)
    files = _sources(example.files)
    fixed = _sources(example.fixed)  # type: ignore[arg-type]
    unknown = sorted(set(fixed) - set(files))
    # A 'fixed' for a file the example does not have would compare nothing (or read a file
    # that is not there): an error in the example itself, said as one.
    assert not unknown, (f"{where}: 'fixed' names {', '.join(unknown)}, which the example's "
                         f"files ({', '.join(sorted(files))}) do not include; with several "
                         "files, give 'fixed' as a dict of path to source")
    for relative, text in sorted({**files, **fixed}.items()):
        actual = (root / relative).read_text(encoding="utf-8")
        assert actual == text, (
            f"{where}: after --fix, {relative} is\n{_indent(actual)}\n  but 'fixed' says\n"
            f"{_indent(text)}")


def _indent(text: str) -> str:
    return "\n".join("    | " + line for line in text.splitlines())


def check_definition(rule: type[Rule]) -> None:
    """Assert that a rule is complete: code, name, summary, check, options, the four
    documentation sections of its docstring, and at least one valid and one invalid example."""
    problems = rule_definition_problems(rule)
    docs = rule.docs()
    problems += [f"its docstring lacks a '## {section}' section" for section in DOC_SECTIONS
                 if not docs[section]]
    if not rule.valid:
        problems.append("it declares no valid examples")
    if not rule.invalid:
        problems.append("it declares no invalid examples")
    assert not problems, f"{rule.__module__}.{rule.__qualname__}: " + "; ".join(problems)


# --- pytest --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RuleCase:
    """One test of a rule: one of its examples, or (example None) its definition."""

    rule: type[Rule]
    example: Valid | Invalid | None
    id: str

    def run(self) -> None:
        if self.example is None:
            check_definition(self.rule)
        else:
            check_example(self.rule, self.example)


def rule_cases(rule: type[Rule]) -> Iterator[RuleCase]:
    code = getattr(rule, "code", rule.__name__)
    yield RuleCase(rule, None, f"{code}-definition")
    for name, example in iter_examples(rule):
        yield RuleCase(rule, example, name)


def iter_examples(rule: type[Rule]) -> Iterator[tuple[str, Valid | Invalid]]:
    for number, example in enumerate(rule.valid, 1):
        yield f"{rule.code}-valid-{example.name or number}", example
    for number, example in enumerate(rule.invalid, 1):
        yield f"{rule.code}-invalid-{example.name or number}", example


def rule_tests(*rules: type[Rule]) -> Callable[[RuleCase], None]:
    """A pytest test that runs every example of ``rules`` and checks each rule's definition.

    Assign it to a ``test_`` name in a test module; pytest reports one test per example
    (``test_frozen_events[HR001-invalid-bare decorator]``)::

        test_frozen_events = rule_tests(FrozenEvents)
    """
    import pytest

    params = []
    for rule in rules:
        for case in rule_cases(rule):
            params.append(pytest.param(case, id=case.id))

    @pytest.mark.parametrize("case", params)
    def test_rule(case: RuleCase) -> None:
        case.run()

    return test_rule


def rule_example_params(*rules: type[Rule]) -> list[Any]:
    """``pytest.param(rule, example, id=...)`` for every example of ``rules`` (for tests
    that want their own function; ``rule_tests`` is the one-call form)."""
    import pytest

    return [pytest.param(rule, example, id=name)
            for rule in rules for name, example in iter_examples(rule)]
