"""What every output format renders: the run's diagnostics with display paths."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from lintkit.core.diagnostics import Diagnostic, Edit, Location, Related, sort_diagnostics
from lintkit.core.suppressions import Suppressed

if TYPE_CHECKING:  # the rule API imports pydantic; a replayed run reports without it
    from lintkit.core.rule import Rule


def notes(d: Diagnostic) -> list[Related]:
    """The related places a text report lists as notes after the detail lines: those the
    detail does not already spell out (an import chain's hops are both)."""
    shown = {" ".join(line.split()) for line in d.detail}
    return [r for r in d.related if " ".join(r.message.split()) not in shown]


@functools.lru_cache(maxsize=4096)
def display_path(root: Path, path: str, cwd: Path) -> str:
    """A project-relative path as the user should see it: relative to the current directory.

    Kept: a report names the same few files over and over (a diagnostic, its related
    places, its fix's edits), and ``relpath`` asks the system for the current directory
    twice per call (on the standard library, 2,600 calls took 17 ms of a 190 ms run)."""
    absolute = root / path
    try:
        return os.path.relpath(absolute, cwd).replace(os.sep, "/")
    except ValueError:  # another drive on Windows
        return absolute.as_posix()


def _rebase_location(location: Location, root: Path, cwd: Path) -> Location:
    path = display_path(root, location.path, cwd)
    return location if path == location.path else replace(location, path=path)


def _rebase_related(related: Related, root: Path, cwd: Path) -> Related:
    location = _rebase_location(related.location, root, cwd)
    return related if location is related.location else replace(related, location=location)


def _rebase_edit(edit: Edit, root: Path, cwd: Path) -> Edit:
    path = display_path(root, edit.path, cwd)
    return edit if path == edit.path else replace(edit, path=path)


def rebase(diagnostic: Diagnostic, root: Path, cwd: Path) -> Diagnostic:
    """``diagnostic`` with its paths as the user should see them (itself when they already
    are: run from the project's root, as usual)."""
    location = _rebase_location(diagnostic.location, root, cwd)
    related = tuple(_rebase_related(r, root, cwd) for r in diagnostic.related)
    fix = diagnostic.fix
    if fix is not None:  # edits name files too; show them like every other path
        edits = tuple(_rebase_edit(e, root, cwd) for e in fix.edits)
        if edits != fix.edits:
            fix = replace(fix, edits=edits)
    if (location is diagnostic.location and related == diagnostic.related
            and fix is diagnostic.fix):
        return diagnostic
    return replace(diagnostic, location=location, related=related, fix=fix)


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
