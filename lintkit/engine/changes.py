"""``--changed-since REV``: which lines of the working tree are new or changed since REV.

A gate that must "fail the diff" reports only diagnostics on those lines. The lines come
from ``git diff`` between REV and the working tree (staged and unstaged changes alike);
a file git does not track yet (and does not ignore) is new, so all its lines count.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lintkit.core.diagnostics import Diagnostic

_HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34,
            b"\\": 92}


class ChangesError(Exception):
    """--changed-since cannot be answered (no git, not a repository, unknown revision)."""


@dataclass(frozen=True)
class ChangedLines:
    """Absolute real paths -> the 1-based line numbers added or modified since ``rev``;
    ``None`` for a whole file that is new."""

    rev: str
    lines: dict[str, frozenset[int] | None]

    def touches(self, path: Path, first: int, last: int) -> bool:
        changed = self.lines.get(os.path.realpath(path), frozenset())
        return changed is None or any(first <= line <= last for line in changed)


def _git(directory: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-c", "core.quotePath=true", *args], cwd=directory,
                              capture_output=True, check=False)
    except FileNotFoundError:
        raise ChangesError("--changed-since needs git, and git is not installed") from None
    if done.returncode != 0:
        raise ChangesError(done.stderr.decode(errors="replace").strip() or "git failed")
    return done.stdout


def _unquote(raw: bytes) -> str:
    """A path as git prints it: plain, or C-quoted with octal escapes for odd bytes."""
    if not raw.startswith(b'"'):
        return os.fsdecode(raw)
    out, body, i = bytearray(), raw[1:-1], 0
    while i < len(body):
        if body[i:i + 1] == b"\\":
            following = body[i + 1:i + 2]
            if following.isdigit():
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out.append(_ESCAPES.get(following, following[0]))
            i += 2
            continue
        out.append(body[i])
        i += 1
    return os.fsdecode(bytes(out))


def parse_diff(diff: bytes, top: Path) -> dict[str, frozenset[int]]:
    """The added lines of a ``git diff -U0`` output, per absolute path."""
    found: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in diff.split(b"\n"):
        if line.startswith(b"+++ "):
            target = line[4:].rstrip(b"\r")
            if target == b"/dev/null":
                current = None
            else:
                name = _unquote(target)
                name = name[2:] if name.startswith("b/") else name
                current = found.setdefault(os.path.realpath(top / name), set())
        elif line.startswith(b"@@") and current is not None:
            hunk = _HUNK.match(line)
            if hunk:
                start, count = int(hunk.group(1)), int(hunk.group(2) or b"1")
                current.update(range(start, start + count))
    return {path: frozenset(lines) for path, lines in found.items()}


def changed_lines(directories: Iterable[Path], rev: str) -> ChangedLines:
    """What changed since ``rev`` in the repositories holding ``directories``."""
    if rev.startswith("-"):
        raise ChangesError(f"--changed-since: '{rev}' is not a revision")
    lines: dict[str, frozenset[int] | None] = {}
    tops: set[Path] = set()
    for directory in directories:
        try:
            top = Path(os.fsdecode(_git(directory, "rev-parse", "--show-toplevel").strip()))
        except ChangesError:
            raise ChangesError(f"--changed-since needs a git repository, and {directory} is "
                               "not inside one") from None
        tops.add(top)
    for top in sorted(tops):
        try:
            _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        except ChangesError:
            raise ChangesError(f"--changed-since: unknown revision '{rev}' in the git "
                               f"repository {top}") from None
        diff = _git(top, "diff", "--no-color", "--no-ext-diff", "--find-renames", "-U0",
                    "--end-of-options", rev, "--")
        lines.update(parse_diff(diff, top))
        untracked = _git(top, "ls-files", "-z", "--others", "--exclude-standard")
        for name in filter(None, untracked.split(b"\0")):
            lines[os.path.realpath(top / os.fsdecode(name))] = None
    return ChangedLines(rev, lines)


def on_changed_lines(root: Path, diagnostics: Sequence[Diagnostic],
                     changed: ChangedLines) -> list[Diagnostic]:
    """The diagnostics on a changed line: their own lines or the lines their fix edits
    (adding ``@dataclass`` to an old class makes the old class line wrong)."""
    kept = []
    for d in diagnostics:
        spans = [(d.path, d.location.line, d.location.end_line)]
        if d.fix is not None:
            spans += [(e.path, e.line, e.end_line) for e in d.fix.edits]
        if any(changed.touches(root / path, first, last) for path, first, last in spans):
            kept.append(d)
    return kept
