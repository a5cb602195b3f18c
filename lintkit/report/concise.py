"""``path:line:col: CODE message``: one line per diagnostic, for editors and grep."""

from __future__ import annotations

from typing import TextIO

from lintkit.report.model import Report


def _one_line(text: str) -> str:
    return " ".join(text.split())


def write_concise(report: Report, out: TextIO) -> None:
    for d in report.sorted():
        loc = d.location
        out.write(f"{loc.path}:{loc.line}:{loc.column}: {d.code} {_one_line(d.message)}\n")
