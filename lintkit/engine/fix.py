"""``--fix`` and ``--diff``: apply the text edits rules offer, safely.

A file is rewritten only when every step holds: its bytes decode strictly in the file's own
encoding (PEP 263 cookie or BOM), the edits of the chosen fixes do not overlap, the result
encodes back into that encoding and parses with LibCST, and the file on disk is still the
one the edits were planned against. The result keeps the encoding, the BOM, the newline
style and the permission bits, and reaches the disk through `write_atomically` (a temporary
file in the same directory, renamed over the original), so a reader or an interruption sees
the old file or the new one, never a mix.

Fixing runs in passes: lint, apply what does not overlap, lint again, until nothing fixable
is left (or `MAX_PASSES`); the last lint is what remains to report.
"""

from __future__ import annotations

import difflib
import io
import os
import re
import stat
import tempfile
import tokenize
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from lintkit.core.diagnostics import Diagnostic, Edit, Fix

MAX_PASSES = 10
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class FixError(Exception):
    """Why a file's fixes were not written (said to the user; the file is left alone)."""


class _Result(Protocol):  # what the engine's ProjectResult offers; no import of the runner
    root: Path
    diagnostics: list[Diagnostic]


@dataclass
class FileFix:
    """One file's change: its bytes before and after, and how many diagnostics it fixes."""

    path: Path
    old: bytes
    new: bytes
    fixed: int


@dataclass
class FixOutcome:
    #: per file, the bytes before the first pass and after the last
    changed: dict[Path, FileFix] = field(default_factory=dict)
    #: files (or fixes) left alone, with the reason
    refused: dict[Path, str] = field(default_factory=dict)

    @property
    def fixed(self) -> int:
        return sum(change.fixed for change in self.changed.values())

    def add(self, change: FileFix) -> None:
        earlier = self.changed.get(change.path)
        if earlier is not None:
            change = FileFix(change.path, earlier.old, change.new, earlier.fixed + change.fixed)
        self.changed[change.path] = change


# --- planning ----------------------------------------------------------------------------------

def fixes_by_file(results: Iterable[_Result],
                  skip: Callable[[Path, Diagnostic], bool] = lambda path, d: False,
                  ) -> dict[Path, dict[Fix, list[Diagnostic]]]:
    """The fixes of the reported diagnostics, grouped by the one file they edit, each with
    the diagnostics it fixes.

    Identical fixes (two diagnostics for one decorator) count once; a fix whose edits span
    several files is left out, since its files could not be written together atomically.
    """
    grouped: dict[Path, dict[Fix, list[Diagnostic]]] = {}
    for result in results:
        for diagnostic in result.diagnostics:
            fix = diagnostic.fix
            if fix is None or not fix.edits or len({e.path for e in fix.edits}) != 1:
                continue
            path = Path(os.path.realpath(result.root / fix.edits[0].path))
            if not skip(path, diagnostic):
                grouped.setdefault(path, {}).setdefault(fix, []).append(diagnostic)
    return grouped


def _split_lines(text: str) -> list[str]:
    """Lines with their endings, split where Python's tokenizer splits (not at form feeds)."""
    return _LINE.findall(text)


def _offsets(lines: list[str]) -> list[int]:
    starts, total = [], 0
    for line in lines:
        starts.append(total)
        total += len(line)
    starts.append(total)
    return starts


def _offset(lines: list[str], starts: list[int], line: int, column: int) -> int:
    """The text offset of a 1-based (line, column); FixError when outside the text."""
    if line == len(lines) + 1 and column == 1:
        return starts[-1]
    if not 1 <= line <= len(lines):
        raise FixError(f"a fix points at line {line}, beyond the end of the file")
    body = lines[line - 1].rstrip("\r\n")
    if not 1 <= column <= len(body) + 1:
        raise FixError(f"a fix points at {line}:{column}, beyond the end of the line")
    return starts[line - 1] + column - 1


def _newline(text: str) -> str:
    match = re.search(r"\r\n|\r|\n", text)
    return match.group() if match else "\n"


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, list[Fix]]:
    """Apply every fix whose edits overlap no edit of an earlier fix; (new text, applied)."""
    lines = _split_lines(text)
    starts = _offsets(lines)
    newline = _newline(text)
    taken: list[tuple[int, int]] = []
    chosen: list[tuple[int, int, str]] = []
    applied: list[Fix] = []
    for fix in sorted(fixes, key=lambda f: min((e.line, e.column) for e in f.edits)):
        spans = [(_offset(lines, starts, e.line, e.column),
                  _offset(lines, starts, e.end_line, e.end_column), e) for e in fix.edits]
        if any(start > end for start, end, _ in spans) or _overlapping(
                [(start, end) for start, end, _ in spans], taken):
            continue  # a later pass gets it, if it still applies then
        taken += [(start, end) for start, end, _ in spans]
        chosen += [(start, end, _with_newline(e, newline)) for start, end, e in spans]
        applied.append(fix)
    for start, end, replacement in sorted(chosen, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text, applied


def _overlapping(spans: list[tuple[int, int]], taken: list[tuple[int, int]]) -> bool:
    everything = sorted(spans + taken)
    # Two edits at one point (two insertions) conflict too: their order would be a guess.
    return any(a_end > b_start or (a_start == a_end == b_start)
               for (a_start, a_end), (b_start, _) in zip(everything, everything[1:]))


def _with_newline(edit: Edit, newline: str) -> str:
    return edit.replacement.replace("\r\n", "\n").replace("\n", newline)


def fix_source(raw: bytes, fixes: Iterable[Fix]) -> tuple[bytes, list[Fix]]:
    """The fixed bytes of one file and how many fixes went in; FixError when unsafe."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        raise FixError(f"cannot tell the file's encoding ({error})") from None
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise FixError(f"the file does not decode as {encoding} ({error})") from None
    fixed, applied = apply_fixes(text, fixes)
    if not applied or fixed == text:
        return raw, []
    try:
        new = fixed.encode(encoding)
    except UnicodeEncodeError as error:
        raise FixError(f"the fixed text cannot be written as {encoding} ({error})") from None
    _check_parses(new)
    return new, applied


def _check_parses(source: bytes) -> None:
    import libcst

    try:
        libcst.parse_module(source)
    except libcst.ParserSyntaxError as error:
        message = " ".join(str(error).split())
        raise FixError(f"the fixed source would not parse ({message}); nothing written") from None


# --- writing -------------------------------------------------------------------------------------

def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path``'s content with ``data``: all or nothing, keeping its permission bits.

    The only place ``--fix`` writes. The temporary file lives in the same directory so the
    final rename stays on one file system, where it is atomic.
    """
    status = os.stat(path)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".lion-lint-fix")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, stat.S_IMODE(status.st_mode))
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # root's new file would be root's
            os.chown(temporary, status.st_uid, status.st_gid)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


class Store(Protocol):
    """Where fixes read files from and write them to."""

    def read(self, path: Path) -> bytes: ...

    def write(self, path: Path, old: bytes, new: bytes) -> None: ...


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise FixError(f"cannot read the file ({error.strerror or error})") from None


class Disk:
    """The files themselves (--fix)."""

    def read(self, path: Path) -> bytes:
        return _read(path)

    def write(self, path: Path, old: bytes, new: bytes) -> None:
        if not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222:
            raise FixError("the file is read-only; nothing written")
        if path.read_bytes() != old:  # edited meanwhile: our positions no longer hold
            raise FixError("the file changed while lion-lint was fixing it; nothing written")
        write_atomically(path, new)


class Memory:
    """Fixed texts kept in memory (--diff, an editor's buffer); files are only read."""

    def __init__(self, texts: dict[Path, bytes] | None = None) -> None:
        self.texts = dict(texts or {})

    def read(self, path: Path) -> bytes:
        return self.texts[path] if path in self.texts else _read(path)

    def write(self, path: Path, old: bytes, new: bytes) -> None:
        self.texts[path] = new


def fix_file(path: Path, fixes: dict[Fix, list[Diagnostic]],
             store: Store) -> tuple[FileFix | None, list[Fix]]:
    """Fix one file in ``store``: (the change or None, the fixes applied)."""
    old = store.read(path)
    new, applied = fix_source(old, fixes)
    if not applied:
        return None, []
    store.write(path, old, new)
    return FileFix(path, old, new, sum(len(fixes[fix]) for fix in applied)), applied


def _key(path: Path, d: Diagnostic) -> tuple[Path, str, str, str]:
    # What identifies a diagnostic across passes, when the fix has moved its line.
    return (path, d.code, d.scope, d.message)


def fix_results(results: Iterable[_Result], store: Store, *,
                outcome: FixOutcome | None = None,
                done: set[tuple[Path, str, str, str]] | None = None) -> FixOutcome:
    """One pass over the reported diagnostics' fixes (``done``: diagnostics fixed in an
    earlier pass; offered again, their fix did not work and is not applied twice)."""
    outcome = outcome if outcome is not None else FixOutcome()
    done = done if done is not None else set()
    again: dict[Path, list[Diagnostic]] = {}

    def skip(path: Path, d: Diagnostic) -> bool:
        if _key(path, d) in done:
            again.setdefault(path, []).append(d)
            return True
        return False

    for path, fixes in sorted(fixes_by_file(results, skip).items()):
        try:
            change, applied = fix_file(path, fixes, store)
        except FixError as error:
            outcome.refused[path] = str(error)
            continue
        if change is not None:
            outcome.add(change)
            done.update(_key(path, d) for fix in applied for d in fixes[fix])
    for path, unfixed in again.items():
        d = unfixed[0]
        outcome.refused.setdefault(path, f"the fix for {d.code} at line {d.location.line} "
                                         "did not remove the diagnostic; applied once only")
        # Counted as fixed when applied; still reported, so not fixed after all.
        change = outcome.changed.get(path)
        if change is not None:
            change.fixed = max(change.fixed - len(unfixed), 0)
    return outcome


def fix_until_stable(lint: Callable[[], Sequence[_Result]], results: Sequence[_Result],
                     store: Store) -> tuple[Sequence[_Result], FixOutcome]:
    """Fix, re-lint (``lint`` sees what ``store`` holds) and repeat while fixes apply;
    returns what remains and what was done."""
    outcome = FixOutcome()
    done: set[tuple[Path, str, str, str]] = set()
    for _ in range(MAX_PASSES):
        before = outcome.fixed
        fix_results(results, store, outcome=outcome, done=done)
        if outcome.fixed == before:
            break
        results = lint()
    return results, outcome


def unified_diff(label: str, old: bytes, new: bytes) -> str:
    """A ``diff -u`` of one file's fix, decoded in the file's encoding."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(old).readline)
    before = _split_lines(old.decode(encoding, errors="replace"))
    after = _split_lines(new.decode(encoding, errors="replace"))
    lines = difflib.unified_diff(before, after, f"a/{label}", f"b/{label}")
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
                   for line in lines)
