"""The default terminal format: each diagnostic with a code frame, then a summary (rich)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text

from lintkit.core.diagnostics import Diagnostic
from lintkit.core.project import decode_source, split_lines
from lintkit.report.model import Report, notes

_CONTEXT = 1  # lines shown above and below the reported line
_TAB = 4  # columns a tab takes in the code frame


class _Sources:
    def __init__(self, report: Report) -> None:
        self.paths = report.sources
        self.cache: dict[str, list[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self.cache:
            source = self.paths.get(path, Path(path))
            try:
                raw = source if isinstance(source, bytes) else source.read_bytes()
                lines = split_lines(decode_source(raw))
                if len(lines) > 1 and not lines[-1]:  # the "line" after the final newline
                    lines.pop()
                self.cache[path] = lines
            except OSError:
                self.cache[path] = []
        return self.cache[path]


def _frame(d: Diagnostic, lines: list[str]) -> Text:
    loc = d.location
    text = Text()
    if not lines or loc.line < 1 or loc.line > len(lines):
        return text
    first, last = max(1, loc.line - _CONTEXT), min(len(lines), loc.line + _CONTEXT)
    width = len(str(last))
    for number in range(first, last + 1):
        raw = lines[number - 1]
        text.append(f" {number:>{width}} │ ", style="blue")
        text.append(raw.expandtabs(_TAB) + "\n")
        if number == loc.line:
            end = loc.end_column if loc.end_line == loc.line and loc.end_column > loc.column \
                else len(raw) + 1
            # Columns count a tab as one character; the frame shows it as _TAB spaces, so
            # the carets are placed by the width of the text before them, as displayed.
            start = len(raw[:loc.column - 1].expandtabs(_TAB))
            carets = "^" * max(1, len(raw[:end - 1].expandtabs(_TAB)) - start)
            text.append(f" {'':>{width}} │ ", style="blue")
            text.append(" " * start + carets + "\n", style="bold red")
    return text


def write_full(report: Report, console: Console, *, show_suppressed: bool = False,
               show_summary: bool = True) -> None:
    sources = _Sources(report)
    diagnostics = report.sorted()
    for d in diagnostics:
        loc = d.location
        header = Text()
        header.append(f"{loc.path}:{loc.line}:{loc.column}: ", style="bold")
        header.append(d.code, style="bold red" if d.severity == "error" else "bold yellow")
        header.append(f" [{d.name}] ", style="dim")
        header.append(d.message)
        console.print(header, soft_wrap=True)
        console.print(_frame(d, sources.lines(loc.path)), end="", soft_wrap=True)
        for line in d.detail:
            console.print(Text(f"    {line}", style="cyan"), soft_wrap=True)
        for related in notes(d):
            rl = related.location
            console.print(Text(f"  = note: {rl.path}:{rl.line}:{rl.column}: {related.message}",
                               style="cyan"), soft_wrap=True)
        if d.fix is not None:
            console.print(Text(f"  = fix: {d.fix.description} (run with --fix)", style="green"),
                          soft_wrap=True)
        console.print()
    if show_suppressed:
        for waived in report.suppressed:
            d = waived.diagnostic
            console.print(Text(f"suppressed {d.location.path}:{d.location.line}:"
                               f"{d.location.column}: {d.code} {d.message} -- {waived.reason}",
                               style="dim"), soft_wrap=True)
    if not show_summary:  # --quiet: the diagnostics only
        return
    files = len({d.path for d in diagnostics})
    fixable = sum(1 for d in diagnostics if d.fix is not None)
    if diagnostics:
        summary = Text(f"Found {len(diagnostics)} diagnostic{'s' * (len(diagnostics) != 1)} "
                       f"in {files} file{'s' * (files != 1)}", style="bold red")
        if fixable:
            summary.append(f" ({fixable} fixable with --fix)", style="green")
    else:
        checked = report.files_checked
        summary = Text(f"All checks passed ({checked} file{'s' * (checked != 1)}).",
                       style="bold green")
    if report.suppressed:
        separator = ";" if diagnostics else ""
        summary.append(f"{separator} {len(report.suppressed)} suppressed with a reason"
                       + ("" if show_suppressed else " (--show-suppressed lists them)"),
                       style="dim")
    console.print(summary, soft_wrap=True)
