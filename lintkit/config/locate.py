"""Find and read ``[tool.lion-lint]`` without validating it.

Nothing here imports pydantic or the settings model: a run that replays its last result
(``lintkit.engine.replay``) needs to find its project and read the raw table, and nothing
more, before it knows whether anything must be validated at all.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

#: The ``cache-dir`` setting's default (the settings model reads it from here).
DEFAULT_CACHE_DIR = ".lion-lint-cache"
#: The ``exclude`` setting's default: directories and files no project lints.
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", ".mypy_cache",
    ".ruff_cache", ".pytest_cache", DEFAULT_CACHE_DIR, "build", "dist", "node_modules",
    "*.egg-info", ".eggs",
)


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


def read_tool_table(path: Path) -> dict[str, Any] | None:
    """The ``[tool.lion-lint]`` table of a pyproject, or None if it has none."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    tool = data.get("tool", {})
    table = tool.get("lion-lint") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.lion-lint] must be a table")
    return table


def find_project_root(start: Path) -> tuple[Path, Path | None]:
    """The nearest directory at or above ``start`` whose pyproject.toml has a
    ``[tool.lion-lint]`` table; failing that the nearest with any pyproject.toml; failing
    that ``start`` itself (a file's directory)."""
    start = start if start.is_dir() else start.parent
    fallback: tuple[Path, Path | None] | None = None
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            if read_tool_table(candidate) is not None:
                return directory, candidate
            if fallback is None:
                fallback = (directory, candidate)
    return fallback or (start, None)
