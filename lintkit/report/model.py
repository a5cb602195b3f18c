"""What every output format renders: the run's diagnostics with display paths."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from lintkit.core.diagnostics import Diagnostic, Location, Related, sort_diagnostics
from lintkit.core.suppressions import Suppressed

if TYPE_CHECKING:  # the rule API imports pydantic; a replayed run reports without it
    from lintkit.core.rule import Rule


def notes(d: Diagnostic) -> list[Related]:
    """The related places a text report lists as notes after the detail lines: those the
    detail does not already spell out (an import chain's hops are both)."""
    shown = {" ".join(line.split()) for line in d.detail}
    return [r for r in d.related if " ".join(r.message.split()) not in shown]


def display_path(root: Path, path: str, cwd: Path) -> str:
    """A project-relative path as the user should see it: relative to the current directory."""
    absolute = root / path
    try:
        return os.path.relpath(absolute, cwd).replace(os.sep, "/")
    except ValueError:  # another drive on Windows
        return absolute.as_posix()


def _rebase_location(location: Location, root: Path, cwd: Path) -> Location:
    return replace(location, path=display_path(root, location.path, cwd))


def rebase(diagnostic: Diagnostic, root: Path, cwd: Path) -> Diagnostic:
    related = tuple(replace(r, location=_rebase_location(r.location, root, cwd))
                    for r in diagnostic.related)
    fix = diagnostic.fix
    if fix is not None:  # edits name files too; show them like every other path
        fix = replace(fix, edits=tuple(replace(e, path=display_path(root, e.path, cwd))
                                       for e in fix.edits))
    return replace(diagnostic, location=_rebase_location(diagnostic.location, root, cwd),
                   related=related, fix=fix)


@dataclass
class Report:
    diagnostics: list[Diagnostic]
    rules: list[type[Rule]]
    files_checked: int = 0
    suppressed: list[Suppressed] = field(default_factory=list)
    #: absolute file path per display path, for code frames (bytes: an editor's buffer)
    sources: dict[str, Path | bytes] = field(default_factory=dict)

    def sorted(self) -> list[Diagnostic]:
        return sort_diagnostics(self.diagnostics)
