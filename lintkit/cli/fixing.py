"""``--fix`` and ``--diff`` on the command line: which store the fixes go to, what is said.

- ``--fix``: files are rewritten (lintkit.engine.fix), then what remains is reported as
  usual, and the exit status says whether anything remains.
- ``--diff``: the fixes are printed as a unified diff and nothing is written; the exit
  status is 1 when the diff is not empty.
- with standard input (an editor's buffer), ``--fix`` prints the fixed buffer on stdout and
  what remains on stderr; ``--diff`` prints the diff of the buffer.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from lintkit.core.text import plural
from lintkit.engine.fix import Disk, FixOutcome, Memory, fix_results, fix_until_stable, unified_diff

Buffer = tuple[Path, bytes]
Lint = Callable[[Buffer | None], Sequence[Any]]


def _label(path: Path, cwd: Path) -> str:
    return os.path.relpath(path, cwd).replace(os.sep, "/")


def _say_refused(outcome: FixOutcome, cwd: Path) -> None:
    for path, reason in sorted(outcome.refused.items()):
        click.echo(f"lion-lint: warning: not fixed: {_label(path, cwd)}: {reason}", err=True)


def show_diff(results: Sequence[Any], buffer: Buffer | None, cwd: Path, *,
              quiet: bool) -> bool:
    """Print the fixes as a unified diff; whether there was anything to print."""
    store = Memory(dict([buffer]) if buffer else None)
    outcome = fix_results(results, store)
    for path, change in sorted(outcome.changed.items()):
        sys.stdout.write(unified_diff(_label(path, cwd), change.old, change.new))
    _say_refused(outcome, cwd)
    if not quiet and outcome.changed:
        click.echo(f"Would fix {plural(outcome.fixed, 'diagnostic')} in "
                   f"{plural(len(outcome.changed), 'file')}.", err=True)
    return bool(outcome.changed)


def fix_files(results: Sequence[Any], lint: Lint, cwd: Path, *,
              quiet: bool) -> Sequence[Any]:
    """Rewrite the files; returns the results of the last lint (what remains)."""
    remaining, outcome = fix_until_stable(lambda: lint(None), results, Disk())
    _say_refused(outcome, cwd)
    if not quiet and outcome.fixed:
        # A file whose fix left its diagnostic was changed, but is not counted as fixed.
        files = sum(1 for change in outcome.changed.values() if change.fixed)
        click.echo(f"Fixed {plural(outcome.fixed, 'diagnostic')} in "
                   f"{plural(files, 'file')}.", err=True)
    return remaining


def fix_buffer(results: Sequence[Any], lint: Lint, buffer: Buffer,
               cwd: Path) -> tuple[Sequence[Any], bytes]:
    """Fix an editor's buffer in memory: (what remains, the fixed bytes)."""
    path = buffer[0]
    store = Memory(dict([buffer]))
    remaining, outcome = fix_until_stable(lambda: lint((path, store.texts[path])), results,
                                          store)
    _say_refused(outcome, cwd)
    return remaining, store.texts[path]
