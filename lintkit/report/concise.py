"""``path:line:col: CODE message``: one line per diagnostic, for editors and grep."""

from __future__ import annotations

from typing import TextIO

from lintkit.report.model import Report


def _one_line(text: str) -> str:
    return " ".join(text.split())


def write_concise(report: Report, out: TextIO, *, show_suppressed: bool = False) -> None:
    for d in report.sorted():
        loc = d.location
        out.write(f"{loc.path}:{loc.line}:{loc.column}: {d.code} {_one_line(d.message)}\n")
    if show_suppressed:
        for waived in sorted(report.suppressed, key=lambda s: s.diagnostic.sort_key()):
            d, loc = waived.diagnostic, waived.diagnostic.location
            out.write(f"{loc.path}:{loc.line}:{loc.column}: {d.code} {_one_line(d.message)} "
                      f"[suppressed: {_one_line(waived.reason)}]\n")
