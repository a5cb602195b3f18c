"""What a rule reports: locations, related locations, fixes and diagnostics.

Everything here is plain, immutable data so it can cross process boundaries, be cached as
JSON and be sorted deterministically. Paths are project-relative POSIX paths; reporters turn
them into paths relative to the current directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True, order=True)
class Location:
    """A span in a file: 1-based lines and 1-based columns (in characters)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def at(cls, path: str, span: tuple[int, int, int, int]) -> Location:
        return cls(path, span[0], span[1], span[2], span[3])

    def to_data(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Location:
        return cls(data["path"], data["line"], data["column"], data["end_line"], data["end_column"])


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a diagnostic (a base class, a hop of an import chain)."""

    location: Location
    message: str

    @classmethod
    def at(cls, path: str, span: tuple[int, int, int, int], message: str) -> Related:
        """``Related.at(info.path, cls.span, "the base is defined here")``."""
        return cls(Location.at(path, span), message)

    def to_data(self) -> dict[str, Any]:
        return {**self.location.to_data(), "message": self.message}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Related:
        return cls(Location.from_data(data), data["message"])


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text between two positions (1-based line, 1-based column) of one file."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str

    def to_data(self) -> list[Any]:
        return [self.path, self.line, self.column, self.end_line, self.end_column, self.replacement]

    @classmethod
    def from_data(cls, data: list[Any]) -> Edit:
        return cls(*data)


@dataclass(frozen=True, slots=True)
class Fix:
    description: str
    edits: tuple[Edit, ...]

    def to_data(self) -> dict[str, Any]:
        return {"description": self.description, "edits": [e.to_data() for e in self.edits]}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Fix:
        return cls(data["description"], tuple(Edit.from_data(e) for e in data["edits"]))


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One violation. `scope` is the qualified name of the enclosing definition; the
    baseline uses it (with the offending code) to recognise a violation after edits."""

    location: Location
    code: str
    name: str
    message: str
    severity: Severity = "error"
    related: tuple[Related, ...] = ()
    fix: Fix | None = None
    scope: str = ""
    detail: tuple[str, ...] = field(default=(), compare=False)

    @property
    def path(self) -> str:
        return self.location.path

    def sort_key(self) -> tuple[Any, ...]:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "location": self.location.to_data(),
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "severity": self.severity,
            "related": [r.to_data() for r in self.related],
            "scope": self.scope,
            "detail": list(self.detail),
        }
        if self.fix is not None:
            data["fix"] = self.fix.to_data()
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Diagnostic:
        fix = data.get("fix")
        return cls(
            location=Location.from_data(data["location"]),
            code=data["code"],
            name=data["name"],
            message=data["message"],
            severity=data["severity"],
            related=tuple(Related.from_data(r) for r in data["related"]),
            fix=Fix.from_data(fix) if fix else None,
            scope=data.get("scope", ""),
            detail=tuple(data.get("detail", ())),
        )


def sort_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The one stable order every reporter prints in: path, line, column, code."""
    return sorted(diagnostics, key=Diagnostic.sort_key)
