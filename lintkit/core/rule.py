"""The rule API: what every house rule, shipped or local, is written against.

A rule is a small class. It declares a code, a name, a one-line summary, a docstring in four
sections (What it does / Why it matters / Example / How to fix), an options model validated
from its table in ``[tool.lion-lint]``, and valid/invalid examples that the test suite runs.
Its ``check`` gets the whole project (facts of every file and the index) and yields
diagnostics. Rules never register themselves: the composition root lists them.

Shipped rules and a project's local rules (its ``plugins``) are written against this same
API; docs/writing-rules.md documents it and what of it is stable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from lintkit.core.diagnostics import Diagnostic, Fix, Location, Related, Severity

if TYPE_CHECKING:
    from lintkit.core.project import Project

Span = tuple[int, int, int, int]


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class RuleOptions(BaseModel):
    """Base of every rule's options. Keys are written in kebab-case in the TOML table;
    unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=_kebab,
                              populate_by_name=True)


_Model = TypeVar("_Model", bound=BaseModel)


def validate_table(model: type[_Model], table: Mapping[str, Any]) -> _Model:
    """A TOML table validated as ``model``, with no coercion between kinds: ``true`` is
    not the integer 1, nor ``"false"`` a boolean, nor ``"7"`` a number (pydantic's default
    would take all three). Validated as JSON, where strict mode still fills a tuple or a
    set from an array. May raise pydantic's ValidationError."""
    # A key may be spelled as in TOML (`max-depth`) or as in Python (`max_depth`); both in
    # one table would silently lose one of the two values.
    twice = [(name, alias) for name, alias in _renamed_fields(model).items()
             if name in table and alias in table]
    if twice:
        raise duplicate_key_error(model, [
            (alias, f"given twice, as '{alias}' and '{name}'", table[alias])
            for name, alias in twice])
    return model.model_validate_json(json.dumps(table, default=_not_json), strict=True)


#: The error type of a key given twice (in both its spellings, or in two tables).
DUPLICATE_KEY = "duplicate_key"


def duplicate_key_error(model: type[BaseModel],
                        keys: Sequence[tuple[str, str, Any]]) -> ValidationError:
    """A ValidationError of ``DUPLICATE_KEY`` for each ``(key, how it is given twice,
    value)``, which the config layer words as "key '...' is <how>: keep one"."""
    return ValidationError.from_exception_data(model.__name__, [
        {"type": PydanticCustomError(DUPLICATE_KEY, "{how}", {"how": how}),
         "loc": (key,), "input": value} for key, how, value in keys])


def _renamed_fields(model: type[BaseModel]) -> dict[str, str]:
    return {name: info.alias for name, info in model.model_fields.items()
            if info.alias is not None and info.alias != name}


#: What a TOML date or time is validated as: no setting takes one, so it must be refused
#: as the wrong kind, not crash the encoder.
TOML_DATE_OR_TIME = "date or time"


def _not_json(value: object) -> object:
    return {TOML_DATE_OR_TIME: str(value)}


@dataclass(frozen=True)
class Expect:
    """What an invalid example must report: the line, and optionally the code, column, a
    fragment of the message and (in a multi-module example) the file's path."""

    line: int
    code: str | None = None
    column: int | None = None
    message: str | None = None
    path: str | None = None


Files = str | Mapping[str, str]


@dataclass(frozen=True)
class Valid:
    """Code that must produce no diagnostic. ``files`` is one module's source or a mapping of
    project-relative paths to sources; ``options`` is the rule's table."""

    files: Files
    options: Mapping[str, Any] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)
    name: str = ""


@dataclass(frozen=True)
class Invalid:
    """Code that must produce exactly the expected diagnostics (by position, in order).

    ``expect`` is one ``Expect`` (or a bare line number) or a sequence of them. ``fixed``,
    when given, is what ``files`` must become once every offered fix is applied: one
    module's source, or a mapping of the paths that change to their expected sources."""

    files: Files
    expect: Sequence[Expect | int] | Expect | int
    options: Mapping[str, Any] = field(default_factory=dict)
    config: Mapping[str, Any] = field(default_factory=dict)
    name: str = ""
    fixed: Files | None = None

    def __post_init__(self) -> None:
        # Forgiving on purpose: ``expect=Expect(3)`` (no trailing comma) or ``expect=3``.
        raw = self.expect
        items = (raw,) if isinstance(raw, (Expect, int)) else tuple(raw)
        object.__setattr__(self, "expect", tuple(
            Expect(item) if isinstance(item, int) else item for item in items))


DOC_SECTIONS = ("What it does", "Why it matters", "Example", "How to fix")


class Rule:
    """Base class of all rules. Subclasses set the class attributes and implement check."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    Options: ClassVar[type[RuleOptions]] = RuleOptions
    default_enabled: ClassVar[bool] = True
    severity: ClassVar[Severity] = "error"
    #: Top-level keys of ``[tool.lion-lint]`` this rule reads besides its own table.
    config_keys: ClassVar[tuple[str, ...]] = ()
    valid: ClassVar[tuple[Valid, ...]] = ()
    invalid: ClassVar[tuple[Invalid, ...]] = ()

    def __init__(self, options: RuleOptions | None = None) -> None:
        self.options = options if options is not None else self.Options()

    @classmethod
    def options_from_config(cls, tool_table: Mapping[str, Any]) -> RuleOptions:
        """Validate this rule's options from the ``[tool.lion-lint]`` table (may raise
        pydantic's ValidationError, which the config layer turns into a message)."""
        own = tool_table.get(cls.name, {})
        table = dict(own)
        for key in cls.config_keys:
            if key in tool_table:
                if key in own:  # one value would silently win over the other
                    raise duplicate_key_error(cls.Options, [
                        (key, f"also given in [tool.lion-lint.{cls.name}]", tool_table[key])])
                table[key] = tool_table[key]
        return validate_table(cls.Options, table)

    def check(self, project: Project) -> Iterable[Diagnostic]:
        raise NotImplementedError

    # --- helpers for subclasses ----------------------------------------------------------

    def diagnostic(
        self,
        path: str,
        span: Span,
        message: str,
        *,
        related: Iterable[Related] = (),
        fix: Fix | None = None,
        scope: str = "",
        detail: Iterable[str] = (),
        severity: Severity | None = None,
    ) -> Diagnostic:
        return Diagnostic(
            location=Location.at(path, span),
            code=self.code,
            name=self.name,
            message=message,
            severity=severity or self.severity,
            related=tuple(related),
            fix=fix,
            scope=scope,
            detail=tuple(detail),
        )

    @classmethod
    def docs(cls) -> dict[str, str]:
        """The four documentation sections of the docstring (missing ones are empty)."""
        return parse_docs(cls.__doc__ or "")


_HEADING = re.compile(r"^\s*##\s+(.+?)\s*$")


def parse_docs(docstring: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    lines = _dedent(docstring).splitlines()
    for line in lines:
        heading = _HEADING.match(line)
        if heading:
            current = sections.setdefault(heading.group(1), [])
            continue
        if current is not None:
            current.append(line)
    return {name: "\n".join(sections.get(name, [])).strip() for name in DOC_SECTIONS}


def _dedent(text: str) -> str:
    import inspect

    return inspect.cleandoc(text)


_CODE = re.compile(r"^[A-Z]+[0-9]+$")
_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def rule_definition_problems(rule: type[Rule]) -> list[str]:
    """What keeps a Rule subclass from being runnable (empty when it is complete): a code
    such as ``HR001`` (capitals then digits, so prefixes select it), a kebab-case name (its
    table in ``[tool.lion-lint]``), a summary, a severity a report can show, and its own
    ``check``."""
    problems = []
    code = getattr(rule, "code", None)
    if not isinstance(code, str) or not _CODE.match(code):
        problems.append(f"code must be capitals then digits, such as 'HR001' (got {code!r})")
    name = getattr(rule, "name", None)
    if not isinstance(name, str) or not _NAME.match(name):
        problems.append(f"name must be kebab-case, such as 'my-rule' (got {name!r})")
    summary = getattr(rule, "summary", None)
    if not isinstance(summary, str) or not summary.strip():
        problems.append(f"summary must be a one-line description (got {summary!r})")
    severity = getattr(rule, "severity", None)
    if severity not in ("error", "warning"):
        problems.append(f"severity must be 'error' or 'warning' (got {severity!r})")
    if rule.check is Rule.check:
        problems.append("it does not define check(self, project)")
    options = getattr(rule, "Options", None)
    if not (isinstance(options, type) and issubclass(options, RuleOptions)):
        problems.append(f"Options must be a RuleOptions subclass (got {options!r})")
    return problems


def rule_key_matches(rule: type[Rule], selector: str) -> bool:
    """Whether ``selector`` (a code, a code prefix such as ``LL0``, a name, or ``ALL``)
    selects ``rule``."""
    selector = selector.strip()
    return (selector == "ALL" or selector == rule.name
            or rule.code.startswith(selector.upper()) and bool(selector))
