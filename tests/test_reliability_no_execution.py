"""lion-lint never imports or runs the code it checks.

Every module of the project below leaves a marker file when it is executed: the ones tools
are known to import (conftest.py, setup.py, packages' __init__.py, a module that looks like
a lint plugin, __main__.py, sitecustomize.py, docs/conf.py) and ones named like modules
lion-lint itself imports, which would shadow them if the project were on sys.path (ast.py,
tokenize.py, difflib.py, a rich/ and a libcst/ package). The project is linted in every way a
user runs lion-lint; no marker may appear. (The opt-in ``imports --runtime`` is the one
documented exception and is not run here.)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

IMPORTED_BY_TOOLS = [
    "conftest.py", "setup.py", "__main__.py", "sitecustomize.py", "usercustomize.py",
    "docs/conf.py", "pkg/__init__.py", "pkg/sub/__init__.py", "pkg/__main__.py",
    "tools/__init__.py", "tools/lint/__init__.py", "tools/lint/house_rules.py",
]
SHADOWS = ["ast.py", "tokenize.py", "difflib.py", "fnmatch.py", "rich/__init__.py",
           "libcst/__init__.py", "click/__init__.py", "pydantic/__init__.py"]
BODY = '''\
import atexit
from typing import TYPE_CHECKING

REGISTRY = {}


def handler():
    pass


atexit.register(handler)
REGISTRY["key"] = handler

if TYPE_CHECKING:
    from pkg.sub import thing

if __name__ == "__main__":
    handler()
'''
PLUGIN_LOOKING = '''\
from lintkit import Rule


class HouseRule(Rule):
    """Looks like a plugin; it is not configured, so it must never be imported."""

    code = "HR001"
    name = "house-rule"
    summary = "Never loaded"
'''
PYPROJECT = """\
[tool.lion-lint]
respect-gitignore = false

[[tool.lion-lint.boundaries]]
name = "package stays small"
modules = ["pkg"]
forbid = ["tools", "rich"]

[tool.lion-lint.layers]
order = [["pkg.sub"], ["pkg"], ["tools"]]
"""


def _marker(markers: Path, relative: str) -> str:
    target = markers / relative.replace("/", "__")
    return f"import pathlib\npathlib.Path({str(target)!r}).write_text('executed')\n"


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root, markers = tmp_path / "project", tmp_path / "markers"
    markers.mkdir()
    for relative in [*IMPORTED_BY_TOOLS, *SHADOWS]:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        extra = PLUGIN_LOOKING if relative.endswith("house_rules.py") else BODY
        path.write_text(_marker(markers, relative) + extra)
    (root / "pkg/mod.py").write_text(_marker(markers, "pkg/mod.py") + BODY
                                     + "import tools.lint.house_rules\nimport rich\n")
    (root / "pyproject.toml").write_text(PYPROJECT)
    return root, markers


def _run(command: list[str], cwd: Path, stdin: bytes | None = None) -> int:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(command, cwd=cwd, capture_output=True, input=stdin, timeout=300,
                          env=environment)
    assert done.returncode in (0, 1), (command, done.stdout[-2000:], done.stderr[-2000:])
    return done.returncode


def test_no_checked_code_runs_however_lion_lint_is_run(tree: tuple[Path, Path]) -> None:
    root, markers = tree
    module = [sys.executable, "-m", "lintkit"]
    script = shutil.which("lion-lint")
    commands = [
        [*module, "."],  # cold, with the cache and worker processes
        [*module, ".", "--output-format", "json"],  # warm
        [*module, ".", "--select", "LL", "--no-cache", "--jobs", "1"],
        [*module, "pkg/mod.py", "--output-format", "full", "--statistics"],
        [*module, ".", "--diff"],
        [*module, ".", "--fix"],
        [*module, "imports", "pkg.mod"],
        [*module, "rules"],
        [*module, "explain", "LL003"],
        *([[script, "."]] if script else []),
    ]
    statuses = [_run(command, root) for command in commands]
    statuses.append(_run([*module, "--stdin-filename", "pkg/mod.py", "-"], root,
                         stdin=(root / "pkg/mod.py").read_bytes()))
    assert statuses[0] == 1  # LL003 found the import-time registrations: it did look
    assert sorted(p.name for p in markers.iterdir()) == []


def test_the_markers_would_show_execution(tree: tuple[Path, Path]) -> None:
    # The check above can fail: running a module of the tree does leave its marker.
    root, markers = tree
    subprocess.run([sys.executable, "-I", str(root / "pkg/mod.py")], cwd=markers,
                   capture_output=True, timeout=60)
    assert "pkg__mod.py" in {p.name for p in markers.iterdir()}
