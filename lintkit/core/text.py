"""Words in messages, shared by every layer that writes them."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """``count`` and ``word``, the word with an s unless there is one: "1 file", "2 files"."""
    return f"{count} {word}{'s' * (count != 1)}"
