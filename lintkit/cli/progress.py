"""A progress bar on stderr while phase 1 parses a large project (rich).

Shown only when stderr is a terminal and a project has at least `MIN_FILES` files; short
runs, pipes, CI logs and editors get nothing extra.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any

MIN_FILES = 300


class ProgressBar:
    """The engine's ``progress(done, total)`` callback, drawing one bar per large project."""

    def __init__(self, console: Callable[[], Any]) -> None:
        self.console = console  # made only when a bar is drawn: rich costs to import
        self.progress: Any = None
        self.task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if total < MIN_FILES:
            return
        if self.progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                     MofNCompleteColumn(), console=self.console(),
                                     transient=True)
            self.progress.start()
        if self.task is None or done == 1:
            if self.task is not None:
                self.progress.remove_task(self.task)
            self.task = self.progress.add_task("parsing", total=total)
        # Once every file is parsed, what is left (the facts read in, the index, the rules)
        # takes seconds on a large project: a full bar alone would look like a hang.
        self.progress.update(self.task, completed=done,
                             description="checking" if done >= total else "parsing")

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = self.task = None
