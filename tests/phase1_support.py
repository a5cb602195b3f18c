"""The project of the integration tests, grown for the cache and parallel tests: a
suppressed finding, a syntax error, and optionally enough filler modules for a pool."""

from __future__ import annotations

import os
from pathlib import Path

from tests.integration_support import BAD, run
from tests.integration_support import make_project as make_integration_project

__all__ = ["BAD", "PLUGIN", "add_local_rule", "make_project", "rewrite_later", "run"]

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
            "        return {'k': os.getpid() + value, 'n': len(str(self.label))}",
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


#: A local rule (a plugin) that flags every class named Fine with MESSAGE.
PLUGIN = '''\
from lintkit import Diagnostic, Location, Rule


class NoFine(Rule):
    """Flags every class named Fine."""

    code = "HR001"
    name = "no-fine"
    summary = "No class is named Fine."

    def check(self, project):
        for info in project.index.by_path.values():
            for cls in info.facts.classes:
                if cls.name == "Fine":
                    yield Diagnostic(Location.at(info.path, cls.span), self.code, self.name,
                                     MESSAGE)


MESSAGE = "first wording"
'''


def add_local_rule(root: Path, *settings: str) -> Path:
    """Install PLUGIN as ``tools/house.py`` and name it in ``plugins`` (with any further
    ``settings`` lines); the rule's path."""
    (root / "tools").mkdir()
    (root / "tools/__init__.py").write_text("")
    rule = root / "tools/house.py"
    rule.write_text(PLUGIN)
    pyproject = root / "pyproject.toml"
    lines = "".join(f"{line}\n" for line in ('plugins = ["tools.house:NoFine"]', *settings))
    pyproject.write_text(pyproject.read_text().replace("[tool.lion-lint]\n",
                                                       f"[tool.lion-lint]\n{lines}"))
    return rule


def rewrite_later(path: Path, text: str) -> None:
    """Write new text with a modification time a second later: a file system with coarse
    times could otherwise give the rewritten file the time it had."""
    stat = path.stat()
    path.write_text(text)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
