"""Phase 1 for a set of files: read each file and extract its facts.

This is the part that parses, so it is the part that is cached and parallelised; its
results are plain data.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lintkit.core.facts import FileFacts, ParseError


def read_error(path: str, error: OSError) -> FileFacts:
    reason = error.strerror or type(error).__name__
    return FileFacts(path=path, is_package=path.endswith("__init__.py"),
                     error=ParseError(1, 1, f"cannot read file: {reason}"))


def analyse_file(root: Path, path: str, source: bytes | None = None) -> FileFacts:
    """The facts of one project file (``source`` stands in for the file on disk)."""
    from lintkit.parsing.extract import extract

    if source is None:
        try:
            source = (root / path).read_bytes()
        except OSError as error:
            return read_error(path, error)
    return extract(path, source, path.endswith("__init__.py"))


def collect_facts(root: Path, paths: list[str], overrides: dict[str, bytes],
                  progress: Callable[[int, int], None] | None = None) -> list[FileFacts]:
    facts = []
    for path in paths:
        facts.append(analyse_file(root, path, overrides.get(path)))
        if progress is not None:
            progress(len(facts), len(paths))
    return facts
