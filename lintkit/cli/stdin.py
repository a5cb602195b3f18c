"""Editors lint the unsaved buffer: ``--stdin-filename PATH [-]`` or ``-`` alone.

The buffer's text stands in for the file at PATH while the rest of the project comes from
disk, so cross-module rules see the buffer in its project. ``-`` alone names it ``<stdin>``
in the current directory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lintkit.engine.discovery import named_path

STDIN_NAME = "<stdin>"


class StdinUsageError(Exception):
    pass


def stdin_buffer(paths: Sequence[Path], stdin_filename: Path | None, cwd: Path,
                 read: Callable[[], bytes]) -> tuple[Path, bytes] | None:
    """(the absolute path the buffer stands for, its bytes), or None when not asked."""
    dash = [path for path in paths if str(path) == "-"]
    if stdin_filename is None and not dash:
        return None
    if len(dash) != len(paths) or len(dash) > 1:
        raise StdinUsageError("standard input is linted alone: pass `-` (or "
                              "`--stdin-filename PATH`) without other paths")
    name = stdin_filename if stdin_filename is not None else Path(STDIN_NAME)
    if str(name) == "-" or (cwd / name).is_dir():
        raise StdinUsageError(f"--stdin-filename needs a file name, not {str(name)!r}")
    return named_path(cwd / name), read()
