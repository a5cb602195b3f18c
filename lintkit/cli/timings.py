"""``check --timings``: where a run's time went, step by step, on standard error.

For a slow hook or editor the first question is which step is slow and why the last result
was not replayed: each project's steps as the engine timed them (``ProjectResult.timings``:
the configuration and the rules' import, the survey, the stored result looked up, phase 1
with what came from the cache and what was parsed, the index, each rule, the last step),
the reason a replay was not possible, and the command's own imports and total. Figures are
wall-clock seconds of this run; the report on standard output is not touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from lintkit.core.text import plural
from lintkit.engine.projects import ProjectResult
from lintkit.report.model import display_path


def write_timings(results: Sequence[ProjectResult], missed: str, imports: float | None,
                  total: float, cwd: Path, stream: TextIO) -> None:
    """``missed``: why the run was not replayed ("" when it was); ``imports``: the seconds
    the full run's imports took in this process (None when it did not run)."""
    lines = ["lion-lint: timings (seconds)"]
    if missed:
        lines.append(_line("replay", None, f"not possible: {missed}"))
    if imports is not None:
        lines.append(_line("imports", imports, "the engine, pydantic and the settings model"))
    for result in results:
        checked = plural(result.files_checked, "file")
        lines.append(f"  {display_path(result.root, '', cwd)} ({checked} checked)")
        lines.extend(_line(t.step, t.seconds, t.detail, indent=4) for t in result.timings)
    lines.append(_line("total", total, "since the command started"))
    stream.write("\n".join(lines) + "\n")
    stream.flush()


def _line(step: str, seconds: float | None, detail: str, indent: int = 2) -> str:
    figure = f"{seconds:8.3f}" if seconds is not None else " " * 8
    return f"{' ' * indent}{step:<{24 - indent}}{figure}  {detail}".rstrip()
