"""Which files make up a project: walk the tree, honour include/exclude and .gitignore.

Symlinked directories are not followed (a symlink loop cannot trap the walk); a directory
holding its own ``[tool.lion-lint]`` pyproject is a separate project and is left out.
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from lintkit.config.locate import DEFAULT_EXCLUDE, ConfigError, read_tool_table

if TYPE_CHECKING:  # a replayed run discovers files without importing pydantic
    from lintkit.config.model import Settings


class _Patterns:
    """Glob patterns matched against an entry's name or its project-relative path, or
    naming a directory it lies under: one regular expression for all of them, since every
    entry of the tree is tested (per pattern, ``fnmatch`` cost most of a warm run's walk)."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self._glob = re.compile("|".join(fnmatch.translate(p) for p in patterns)) \
            if patterns else None
        self._under = tuple(p.rstrip("/") + "/" for p in patterns)

    def match(self, relative: str, name: str) -> bool:
        glob = self._glob
        return (glob is not None and (glob.match(name) is not None
                                      or glob.match(relative) is not None)
                or relative.startswith(self._under))


def git_ignored(root: Path) -> tuple[set[str], set[str]] | None:
    """Ignored files and directories below ``root`` per git, or None outside a work tree."""
    try:
        result = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--others", "--ignored", "--exclude-standard",
             "--directory", "-z"],
            capture_output=True, check=False, timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    files: set[str] = set()
    directories: set[str] = set()
    for raw in result.stdout.split(b"\0"):
        if not raw:
            continue
        entry = os.fsdecode(raw)
        (directories if entry.endswith("/") else files).add(entry.rstrip("/"))
    return files, directories


def is_nested_project(directory: Path) -> bool:
    candidate = directory / "pyproject.toml"
    try:
        if not candidate.is_file():
            return False
    except OSError:  # an unreadable directory: the walk reports it
        return False
    try:
        return read_tool_table(candidate) is not None
    except ConfigError:
        return True  # its own (broken) configuration: still not ours to lint


def is_excluded(relative: str, settings: Settings) -> bool:
    """Whether ``exclude``/``extend-exclude`` leave out the project-relative POSIX path,
    by its own name or a directory's on the way to it, as ``discover`` would."""
    exclude = _Patterns(settings.exclude + settings.extend_exclude)
    parts = relative.split("/")
    return any(exclude.match("/".join(parts[:depth + 1]), part)
               for depth, part in enumerate(parts))


def is_included(relative: str, settings: Settings) -> bool:
    """Whether ``include`` takes the project-relative POSIX path, as ``discover`` would."""
    return _Patterns(settings.include).match(relative, relative.rpartition("/")[2])


def projects_below(directory: Path) -> list[Path]:
    """Roots of the projects (their own ``[tool.lion-lint]``) at any depth below
    ``directory``, sorted; what ``lion-lint clean`` reaches beside the enclosing project.

    It needs no project's settings, so it skips only the default excludes, and like
    ``discover`` it does not follow symlinked directories.
    """
    exclude = _Patterns(DEFAULT_EXCLUDE)
    found: list[Path] = []
    stack = [directory]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False) or exclude.match(entry.name, entry.name):
                    continue
            except OSError:
                continue
            if is_nested_project(Path(entry.path)):
                found.append(Path(entry.path))
            stack.append(Path(entry.path))
    return sorted(found)


def discover(root: Path, settings: Settings, *, split_nested: bool = True,
             unreadable: list[tuple[str, str]] | None = None) -> tuple[list[str], list[Path]]:
    """Project-relative POSIX paths of the Python files of the project rooted at ``root``,
    and the roots of nested projects (left out when ``split_nested``). Directories that
    exist but cannot be listed are added to ``unreadable`` as (path, reason)."""
    exclude = _Patterns(settings.exclude + settings.extend_exclude)
    include = _Patterns(settings.include)
    ignored = git_ignored(root) if settings.respect_gitignore else None
    ignored_files, ignored_dirs = ignored if ignored else (set(), set())
    found: list[str] = []
    nested: list[Path] = []
    stack = [""]
    while stack:
        relative_dir = stack.pop()
        directory = root / relative_dir if relative_dir else root
        try:
            entries = list(os.scandir(directory))
        except FileNotFoundError:
            continue  # vanished since it was listed: nothing left to check in it
        except OSError as error:  # its files would go unchecked: never silently
            if unreadable is not None:
                unreadable.append((relative_dir or ".", error.strerror or type(error).__name__))
            continue
        for entry in entries:
            name = entry.name
            relative = f"{relative_dir}/{name}" if relative_dir else name
            if exclude.match(relative, name):
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file()
            except OSError:
                continue
            if is_dir:
                if relative in ignored_dirs:
                    continue
                if split_nested and is_nested_project(Path(entry.path)):
                    nested.append(Path(entry.path))
                    continue
                stack.append(relative)
            elif is_file and include.match(relative, name):
                if relative not in ignored_files:
                    found.append(relative)
    return sorted(found), sorted(nested)


def named_path(path: Path) -> Path:
    """The absolute, resolved place of a path named on the command line, except that a
    symlinked file keeps its own name (in its resolved directory): a link inside a project
    is that project's file, as a run over its directory sees it, not its target's."""
    if path.is_symlink() and not path.is_dir():
        return path.absolute().parent.resolve() / path.name
    return path.resolve() if path.exists() else path.absolute()

