"""What a rule's ``check`` receives: the project root, its files' facts and the index."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lintkit.core.facts import FileFacts
from lintkit.core.index import ProjectIndex

#: How many files' lines ``Project.source_lines`` keeps at once.
_LINES_KEPT = 32


@dataclass
class Project:
    root: Path
    index: ProjectIndex
    #: Project-relative paths whose text stands in for the file on disk (an editor buffer).
    overrides: dict[str, bytes] = field(default_factory=dict)
    #: What the run reports on: project-relative files and directories, ``""`` for all.
    targets: tuple[str, ...] = ("",)
    _lines: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @property
    def files(self) -> list[FileFacts]:
        return [info.facts for info in self.index.by_path.values()]

    def reports(self, path: str) -> bool:
        """Whether the run reports diagnostics at ``path``: the engine drops the others.

        A rule may skip the work whose diagnostics would all fall elsewhere (an editor's
        run asks about one file of a large project), but it still reads every file it
        needs to decide what it reports here."""
        return within(path, self.targets)

    def source_lines(self, path: str) -> list[str]:
        """The decoded lines of a project file (for rules that need text, and for fixes)."""
        kept = self._lines
        lines = kept.pop(path, None)
        if lines is None:
            raw = self.overrides.get(path)
            if raw is None:
                try:
                    raw = (self.root / path).read_bytes()
                except OSError:
                    raw = b""
            lines = split_lines(decode_source(raw))
            # Rules ask about one module at a time: the most recently read files are kept,
            # not every one (LL003 alone read 323 files, 8 MB of lines, on the standard
            # library).
            if len(kept) >= _LINES_KEPT:
                del kept[next(iter(kept))]
        kept[path] = lines  # last in the dict: the most recently used
        return lines

    def source_text(self, path: str, span: tuple[int, int, int, int]) -> str:
        """The text a span covers (a fix that wraps an expression needs it)."""
        line, column, end_line, end_column = span
        lines = self.source_lines(path)[line - 1:end_line]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0][column - 1:end_column - 1]
        return "\n".join([lines[0][column - 1:], *lines[1:-1], lines[-1][:end_column - 1]])


def within(path: str, targets: Sequence[str]) -> bool:
    """Whether the project-relative ``path`` is one of ``targets`` or lies under one
    (``""`` is the whole project)."""
    return any(t == "" or path == t or path.startswith(t + "/") for t in targets)


def split_lines(text: str) -> list[str]:
    """Source lines, split where Python's tokenizer splits: at CRLF, CR and LF only
    (``str.splitlines`` also splits at form feeds, U+2028 and other separators, which would
    shift every line number after them)."""
    return re.split(r"\r\n|\r|\n", text)


def decode_source(raw: bytes) -> str:
    """Decode Python source as the interpreter would (BOM, PEP 263 cookie), never failing."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = raw.decode(encoding, errors="replace")
    except LookupError:
        text = raw.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text
