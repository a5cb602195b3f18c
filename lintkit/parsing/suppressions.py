"""Find ``# lion-lint: ignore[CODE, ...] -- reason`` comments.

Only files that mention ``lion-lint`` get here, and they are tokenized so that the text of a
string literal is never taken for a comment.
"""

from __future__ import annotations

import io
import re
import tokenize

from lintkit.core.facts import SuppressionFact

DIRECTIVE = re.compile(
    r"#\s*lion-lint:\s*ignore(?P<codes>\[[^\]]*\])?(?:\s*--\s*(?P<reason>.*?))?\s*$"
)


def parse_directive(comment: str) -> tuple[tuple[str, ...], str] | None:
    """The codes and reason of a suppression comment, or None if it is not one.

    A directive without a bracketed code list yields no codes (the engine reports it).
    """
    match = DIRECTIVE.search(comment)
    if match is None:
        return None
    codes_text = (match.group("codes") or "[]")[1:-1]
    codes = tuple(sorted({c.strip() for c in codes_text.split(",") if c.strip()}))
    return codes, (match.group("reason") or "").strip()


def find_suppressions(source: bytes, encoding: str) -> list[SuppressionFact]:
    text = source.decode(encoding, errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    found: list[SuppressionFact] = []
    try:
        # newline=None: a lone CR ends a line, as it does for the interpreter.
        tokens = list(tokenize.generate_tokens(io.StringIO(text, newline=None).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return found
    for token in tokens:
        if token.type == tokenize.COMMENT:
            parsed = parse_directive(token.string)
            if parsed is not None:
                line, column = token.start
                own_line = not token.line[:column].strip()
                found.append(SuppressionFact(line, column + 1, column + 1 + len(token.string),
                                             parsed[0], parsed[1], own_line))
    return found
