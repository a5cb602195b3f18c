"""Helpers for testing rules: run them on a small project written as a dict of sources.

    from lintkit.testing import lint_sources, rule_example_params, check_example

    @pytest.mark.parametrize(("rule", "example"), rule_example_params(MyRule))
    def test_examples(rule, example):
        check_example(rule, example)

Each example runs the real engine (phase 1 with LibCST, the index, suppressions) on real
files in a temporary directory.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from lintkit.config.load import LoadedConfig
from lintkit.config.model import Settings
from lintkit.core.builtin import ENGINE_RULES
from lintkit.core.diagnostics import Diagnostic
from lintkit.core.rule import Files, Invalid, Rule, Valid
from lintkit.engine.run import RunOptions, instantiate, lint_loaded

DEFAULT_MODULE = "example.py"


def write_project(root: Path, files: Files) -> None:
    sources = {DEFAULT_MODULE: files} if isinstance(files, str) else dict(files)
    for relative, source in sources.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")


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
    table: dict[str, Any] = dict(config or {})
    if options:
        table[rules[0].name] = dict(options)
    engine_keys = {info.alias or name for name, info in Settings.model_fields.items()}
    settings = Settings.model_validate(
        {"respect-gitignore": False, **{k: v for k, v in table.items() if k in engine_keys}})
    loaded = LoadedConfig(root=root, path=None, settings=settings, tool_table=table)
    available = [*ENGINE_RULES, *rules]
    active = instantiate(available, loaded)
    return lint_loaded(loaded, available, active, [root], RunOptions()).diagnostics


def check_example(rule: type[Rule], example: Valid | Invalid) -> None:
    """Assert that a rule's example behaves as declared."""
    found = [d for d in lint_sources(example.files, [rule], options=example.options,
                                     config=example.config)]
    shown = "\n".join(f"  {d.path}:{d.location.line}:{d.location.column}: {d.code} {d.message}"
                      for d in found)
    if isinstance(example, Valid):
        assert not found, f"valid example {example.name!r} of {rule.code} reported:\n{shown}"
        return
    assert len(found) == len(example.expect), (
        f"invalid example {example.name!r} of {rule.code}: expected {len(example.expect)} "
        f"diagnostic(s), got {len(found)}:\n{shown}")
    for expected, diagnostic in zip(example.expect, found):
        where = f"invalid example {example.name!r} of {rule.code}"
        assert diagnostic.location.line == expected.line, f"{where}: wrong line\n{shown}"
        if expected.code is not None:
            assert diagnostic.code == expected.code, f"{where}: wrong code\n{shown}"
        if expected.column is not None:
            assert diagnostic.location.column == expected.column, f"{where}: wrong column\n{shown}"
        if expected.message is not None:
            assert expected.message in diagnostic.message, f"{where}: wrong message\n{shown}"


def iter_examples(rule: type[Rule]) -> Iterator[tuple[str, Valid | Invalid]]:
    for number, example in enumerate(rule.valid, 1):
        yield f"{rule.code}-valid-{example.name or number}", example
    for number, example in enumerate(rule.invalid, 1):
        yield f"{rule.code}-invalid-{example.name or number}", example


def rule_example_params(*rules: type[Rule]) -> list[Any]:
    """``pytest.param(rule, example, id=...)`` for every example of ``rules``."""
    import pytest

    return [pytest.param(rule, example, id=name)
            for rule in rules for name, example in iter_examples(rule)]
