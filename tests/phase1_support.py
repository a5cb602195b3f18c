"""The project of the integration tests, grown for the cache and parallel tests: a
suppressed finding, a syntax error, and optionally enough filler modules for a pool."""

from __future__ import annotations

from pathlib import Path

from tests.integration_support import BAD, run
from tests.integration_support import make_project as make_integration_project

__all__ = ["BAD", "make_project", "run"]

SUPPRESSED = """\
from dataclasses import dataclass

from pkg.base import Params


@dataclass(frozen=True)  # lion-lint: ignore[LL001] -- kept for the wire format
class Kept(Params):
    pass
"""
BROKEN = "def broken(:\n    pass\n"


def filler(number: int) -> str:
    """A module with imports, classes, calls and literals; about 7 KB."""
    lines = [f'"""Generated module {number}: ünïcode text."""', "from __future__ import annotations",
             "", "import os", "from pkg.base import Params", ""]
    for index in range(40):
        lines += [
            f"class Thing{index}(Params):",
            f"    label = 'thing-{index}'",
            f"    def run(self, value: int = {index}) -> dict[str, int]:",
            f"        return {{'k': os.getpid() + value, 'n': len(str(self.label))}}",
            "",
        ]
    lines.append(f"REGISTRY = {{name: i for i, name in enumerate(['a', 'b'])}}  # {number}")
    return "\n".join(lines) + "\n"


def make_project(root: Path, fillers: int = 0) -> Path:
    """One LL001 finding (bad.py), one suppressed (kept.py), one syntax error (broken.py)."""
    extra = {"src/pkg/kept.py": SUPPRESSED, "src/pkg/broken.py": BROKEN}
    extra.update({f"src/pkg/gen/mod{n:02d}.py": filler(n) for n in range(fillers)})
    if fillers:
        extra["src/pkg/gen/__init__.py"] = ""
    return make_integration_project(root, extra)
