"""Discovery: which files of a real tree make up the project, by include and exclude.

A pattern matches an entry's name or its project-relative path (glob), or names a
directory the entry lies under.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lintkit.config.model import Settings
from lintkit.engine.discovery import discover

TREE = [
    "main.py", "stub.pyi", "notes.txt", "ab.py", "ax.py",
    "src/pkg/__init__.py", "src/pkg/core.py", "src/pkg/msg_pb2.py",
    "src/gen/made.py", "src/gen/deeper/made_too.py",
    "tests/test_core.py", "tests/data/case.py",
    ".venv/lib/site.py", "build/lib/copy.py", "pkg.egg-info/x.py", "src/pkg/__pycache__/c.py",
    "docs/conf.py",
]


def _tree(root: Path) -> Path:
    for path in TREE:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("")
    return root


def _found(root: Path, **settings: object) -> list[str]:
    paths, _ = discover(root, Settings(respect_gitignore=False, **settings))
    return paths


def test_the_default_keeps_python_files_out_of_tool_directories(tmp_path: Path) -> None:
    assert _found(_tree(tmp_path)) == [
        "ab.py", "ax.py", "docs/conf.py", "main.py", "src/gen/deeper/made_too.py",
        "src/gen/made.py", "src/pkg/__init__.py", "src/pkg/core.py", "src/pkg/msg_pb2.py",
        "tests/data/case.py", "tests/test_core.py"]


@pytest.mark.parametrize("patterns, gone", [
    # a name anywhere
    (["*_pb2.py"], ["src/pkg/msg_pb2.py"]),
    (["docs"], ["docs/conf.py"]),
    # a relative path glob (``*`` crosses ``/``, as in fnmatch)
    (["src/gen/*"], ["src/gen/deeper/made_too.py", "src/gen/made.py"]),
    # a directory the entry lies under, with or without the slash
    (["tests/"], ["tests/data/case.py", "tests/test_core.py"]),
    (["tests/data"], ["tests/data/case.py"]),
    # character classes, and one of several patterns
    (["a[b]*.py", "main.py"], ["ab.py", "main.py"]),
    (["m?in.py", "[!a]b.py"], ["main.py"]),
])
def test_extend_exclude(tmp_path: Path, patterns: list[str], gone: list[str]) -> None:
    everything = _found(_tree(tmp_path))
    assert _found(tmp_path, extend_exclude=tuple(patterns)) == [
        p for p in everything if p not in gone]


def test_include_widens_and_narrows(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert "stub.pyi" in _found(tmp_path, include=("*.py", "*.pyi"))
    assert _found(tmp_path, include=("src/pkg/*.py",)) == [
        "src/pkg/__init__.py", "src/pkg/core.py", "src/pkg/msg_pb2.py"]
    assert _found(tmp_path, include=()) == []
