"""Configuration shared by LL004 import-boundary and LL005 layer-order: module patterns and
reviewed exceptions (one import edge each, with a reason)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pydantic import BaseModel, ConfigDict, field_validator

from lintkit import Project
from lintkit.core.imports import Edge, ModulePattern


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class Table(BaseModel):
    """A TOML table: kebab-case keys, unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=_kebab,
                              populate_by_name=True)


def check_patterns(values: Iterable[str]) -> tuple[str, ...]:
    """Validate dotted module patterns (raises ValueError naming the bad one)."""
    out = tuple(values)
    for value in out:
        ModulePattern(value)
    return out


class EdgeException(Table):
    """One reviewed import edge that a contract lets through.

    ``importer`` is a module; ``imported`` a module (its submodules included). Wildcards are
    refused: an exception names one edge, so it cannot grow to excuse imports nobody
    reviewed (ADR-0122).
    """

    importer: str
    imported: str
    reason: str

    @field_validator("importer", "imported")
    @classmethod
    def _one_module(cls, value: str) -> str:
        if any(c in value for c in "*?[]"):
            raise ValueError(f"'{value}': an exception names one import edge; wildcards are "
                             "refused (list each edge with its own reason)")
        ModulePattern(value)
        return value.strip()

    @field_validator("reason")
    @classmethod
    def _has_reason(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("an exception needs a reason (why this edge is allowed, and until "
                             "when)")
        return value.strip()

    def matches(self, edge: Edge) -> bool:
        return edge.importer == self.importer and (
            edge.imported == self.imported or edge.imported.startswith(self.imported + "."))

    @property
    def text(self) -> str:
        return f"{self.importer} -> {self.imported}"


def pyproject_span(project: Project, *needles: str) -> tuple[str, tuple[int, int, int, int]]:
    """Where ``pyproject.toml`` mentions all of ``needles`` (quoted) on one line, for
    diagnostics about configuration; line 1 when it cannot be found."""
    lines = project.source_lines("pyproject.toml")
    quoted = [f'"{n}"' for n in needles]
    for wanted in (quoted, quoted[:1]):
        for number, line in enumerate(lines, 1):
            if wanted and all(q in line for q in wanted):
                column = line.index(wanted[0]) + 1
                return "pyproject.toml", (number, column, number, column + len(wanted[0]))
    return "pyproject.toml", (1, 1, 1, 1)


def exception_blocker(exceptions: Iterable[EdgeException]) -> Callable[[Edge], bool] | None:
    """A predicate that is true for an edge one of ``exceptions`` lets through."""
    listed = tuple(exceptions)
    if not listed:
        return None
    return lambda edge: any(exception.matches(edge) for exception in listed)


def first_statement(chain: list[Edge]) -> Edge | None:
    """The first hop of a chain that is a statement or call (parent hops have none)."""
    return next((edge for edge in chain if edge.kind != "parent"), None)

