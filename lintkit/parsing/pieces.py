"""Cut a large module into runs of whole top-level statements, for LibCST to parse one run
at a time.

LibCST's tree of a module costs some 650 bytes of memory per byte of source: 200 MB for the
standard library's 300 KB ``test/test_typing.py``. Phase 1 needs only one statement at a time
(the facts of a top-level statement never depend on the tree of another), so a large module
is parsed in pieces of about ``PIECE_BYTES`` each and each piece's tree is dropped before
the next is built: measured on that module, its worker peaked at 71 MB instead of 198 MB,
and took 0.88 s instead of 1.08 s, CPython's parse for the cuts included.

CPython's parser (``ast``, which only parses) says where the top-level statements start and
end. A cut is made only at the start of a line where a statement begins and which no earlier
statement reaches, so every piece is whole statements, with the comments and blank lines
before the next cut. Nothing is cut when there is doubt: a file CPython does not parse (a
syntax error, newer syntax), a file with a carriage return (CPython and LibCST would have to
agree on lone CRs), or a file not in plain UTF-8 (a BOM or another declared encoding). Those
files are parsed whole, as every file was before.
"""

from __future__ import annotations

import ast
import io
import tokenize

#: Files at least this large are parsed in pieces.
PIECEWISE_MIN_BYTES = 64 * 1024
#: A piece grows by whole statements until it is at least this large.
PIECE_BYTES = 32 * 1024


def pieces(source: bytes, piece_bytes: int = PIECE_BYTES,
           tree: ast.Module | None = None) -> list[tuple[int, str]] | None:
    """The module's text as ``(first line, text)`` pieces, in order, or None to parse whole.

    Joined, the texts are the whole file; the first line of each is 1-based. ``tree`` is
    CPython's tree of ``source`` when one was already built (``lintkit.parsing.guard``
    builds one for a file that could nest deep, as most large modules could)."""
    if b"\r" in source or source.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        if encoding != "utf-8":
            return None
        text = source.decode("utf-8")
        statements = (tree if tree is not None else ast.parse(text)).body
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError):
        return None
    cut_lines = []
    reached = 0  # the last line an earlier statement reaches
    for statement in statements:
        first = statement.lineno
        for decorator in getattr(statement, "decorator_list", ()):
            first = min(first, decorator.lineno)
        if first > reached and reached:
            cut_lines.append(first)
        reached = max(reached, statement.end_lineno or statement.lineno)
    if not cut_lines:
        return None
    line_starts = [0]
    for line in text.split("\n")[:-1]:
        line_starts.append(line_starts[-1] + len(line) + 1)
    found: list[tuple[int, str]] = []
    start, first_line = 0, 1
    for line in cut_lines:
        offset = line_starts[line - 1]
        if offset - start >= piece_bytes:
            found.append((first_line, text[start:offset]))
            start, first_line = offset, line
    found.append((first_line, text[start:]))
    return found if len(found) > 1 else None
