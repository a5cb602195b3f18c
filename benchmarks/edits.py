"""How often an edit leaves a module's facts as they were: what reusing phase 2 could save.

    python benchmarks/edits.py CHECKOUT [--commits N] [--under DIR] [--bulk N]

A changed run's cost is phase 2 (the index and the rules on the whole project), which is
a pure function of every file's facts. An edit that leaves its module's facts unchanged
could reuse the last result instead; one that changes only positions (lines added above
a class, a longer docstring) could reuse it with the places moved. This script measures
how often real edits are of either kind, on a git checkout's history: for each Python
module modified by one of the last N commits (merges left out), lion-lint's phase 1
extracts the facts before and after, and the edit is counted as

  same facts    identical, positions included
  same shape    identical once positions are left out (spans, lines, the line count)
  changed       anything else

Commits modifying ``--bulk`` modules or more (a formatter run, a licence header, a rename
across the tree) are counted apart: they say little about everyday edits. A commit is
coarser than the saves an editor or a hook sees, so these shares are a floor for those.
"""

from __future__ import annotations

import argparse
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

from lintkit.core.facts import CallFact, Expr, FileFacts
from lintkit.parsing.extract import extract

#: Fields that hold positions only, left out of a module's shape (``lambdas`` is the span
#: of each lambda: only their number is kept).
_POSITIONS = frozenset({"span", "header", "keyword_line", "line_count", "line", "column",
                        "end_column"})


def plain(value: Any, positions: bool = True) -> Any:
    """``value`` (facts, or a part of them) as plain nested tuples, with or without the
    positions."""
    if isinstance(value, CallFact):
        return ("call", plain(value.call, positions), value.span if positions else None,
                value.scope, value.when, value.guard)
    if isinstance(value, Expr):
        parts = (value.items, value.values, value.keywords, value.func)
        return ("expr", value.kind, value.span if positions else None, value.text,
                repr(value.value), *(plain(part, positions) for part in parts))
    if is_dataclass(value):
        shown: list[Any] = [type(value).__name__]
        for item in fields(value):
            name = item.name.lstrip("_")
            if not item.compare or (not positions and name in _POSITIONS):
                continue  # bookkeeping (a weak reference to the file's calls), or a place
            held = getattr(value, name)
            shown.append(len(held) if name == "lambdas" and not positions
                         else plain(held, positions))
        return tuple(shown)
    if isinstance(value, (list, tuple)):
        return tuple(plain(item, positions) for item in value)
    return value


def facts_of(path: str, source: bytes) -> FileFacts:
    return extract(path, source, path.endswith("__init__.py"))


def classify(path: str, before: bytes, after: bytes) -> str:
    """``same facts``, ``same shape`` or ``changed``: what editing ``before`` into
    ``after`` did to the module's facts."""
    old, new = facts_of(path, before), facts_of(path, after)
    if plain(old) == plain(new):
        return "same facts"
    if plain(old, positions=False) == plain(new, positions=False):
        return "same shape"
    return "changed"


@dataclass
class Tally:
    edits: int = 0
    same_facts: int = 0
    same_shape: int = 0

    def add(self, kind: str) -> None:
        self.edits += 1
        self.same_facts += kind == "same facts"
        self.same_shape += kind == "same shape"

    def show(self) -> str:
        if not self.edits:
            return "no modules modified"
        share = lambda count: f"{count} ({count / self.edits:.0%})"  # noqa: E731
        return (f"{self.edits} module edits: same facts {share(self.same_facts)}, same shape "
                f"{share(self.same_shape)}, changed "
                f"{share(self.edits - self.same_facts - self.same_shape)}")


def _git(checkout: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(checkout), *args], capture_output=True,
                          check=True).stdout


def modified_modules(checkout: Path, commit: str, under: str) -> list[str]:
    listing = _git(checkout, "diff", "--name-status", "--no-renames", f"{commit}^", commit,
                   "--", under).decode("utf-8", "surrogateescape")
    return [line.split("\t")[1] for line in listing.splitlines()
            if line.startswith("M\t") and line.endswith(".py")]


def edits(checkout: Path, commits: int, under: str) -> Iterator[tuple[str, list[str]]]:
    """Each of the last ``commits`` commits touching ``under`` (merges and a root commit
    left out), with the Python modules it modified."""
    log = _git(checkout, "log", "--no-merges", "--format=%H %P", "-n", str(commits), "--",
               under)
    for line in log.decode().splitlines():
        commit, *parents = line.split()
        if parents:  # a root commit only adds files
            yield commit, modified_modules(checkout, commit, under)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a git checkout")
    parser.add_argument("--commits", type=int, default=300, help="how many commits back")
    parser.add_argument("--under", default=".", help="only modules under this directory")
    parser.add_argument("--bulk", type=int, default=10,
                        help="commits modifying this many modules or more are counted apart")
    args = parser.parse_args()
    if not (args.checkout / ".git").exists():
        parser.error(f"{args.checkout}: not a git checkout")
    everyday, bulk = Tally(), Tally()
    seen = 0
    for commit, modules in edits(args.checkout, args.commits, args.under):
        seen += 1
        tally = bulk if len(modules) >= args.bulk else everyday
        for path in modules:
            before = _git(args.checkout, "show", f"{commit}^:{path}")
            after = _git(args.checkout, "show", f"{commit}:{path}")
            tally.add(classify(path, before, after))
    print(f"{args.checkout}, the last {seen} commits touching {args.under}:")
    print(f"  commits of fewer than {args.bulk} modules: {everyday.show()}")
    print(f"  commits of {args.bulk} modules or more:  {bulk.show()}")


if __name__ == "__main__":
    main()
