"""Shared by the integration tests (tests/test_integrations_*.py): a small real project
whose violation needs the whole index (its chain crosses three modules), and a way to run
the real command on it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PYPROJECT = """\
[tool.lion-lint]
src = ["src"]

[tool.lion-lint.structural-eq]
authorities = ["pkg.base.Params"]
"""
BASE = """\
from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Params:
    pass
"""
MID = """\
from dataclasses import dataclass

from pkg.base import Params


@dataclass(frozen=True, eq=False)
class Mid(Params):
    pass
"""
BAD = """\
from dataclasses import dataclass

from pkg.mid import Mid


@dataclass(frozen=True)  # keep this comment
class Bad(Mid):
    name: str = ""
"""
CLEAN = """\
from pkg.mid import Mid


class Fine(Mid):
    pass
"""
BAD_MESSAGE = ("Bad descends from Params (via Mid) but its @dataclass does not pass eq=False, "
               "so a generated __eq__ replaces the structural one")


def make_project(root: Path, extra: dict[str, str] | None = None) -> Path:
    files = {"pyproject.toml": PYPROJECT, "src/pkg/__init__.py": "", "src/pkg/base.py": BASE,
             "src/pkg/mid.py": MID, "src/pkg/bad.py": BAD, "src/pkg/clean.py": CLEAN,
             **(extra or {})}
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def run(*args: str | Path, cwd: Path, stdin: bytes | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``lion-lint ARGS`` as a user runs it (stdout and stderr are pipes, not terminals)."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NO_COLOR", "FORCE_COLOR", "LION_LINT_DEBUG")}
    environment.update(env or {})
    done = subprocess.run([sys.executable, "-m", "lintkit", *map(str, args)], cwd=cwd,
                          capture_output=True, env=environment, input=stdin, timeout=300)
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       done.stdout.decode("utf-8"), done.stderr.decode("utf-8"))


def git(cwd: Path, *args: str) -> str:
    environment = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                   "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env=environment).stdout


def git_init(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "commit.gpgsign", "false")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
