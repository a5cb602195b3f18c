"""GitHub Actions workflow commands: one ``::error`` annotation per diagnostic.

    ::error file=PATH,line=L,col=C,endLine=EL,endColumn=EC,title=CODE name::message

GitHub shows each as an annotation on the pull request's diff. Related locations (the bases
of a chain, the hops of an import chain) follow the message as ``note:`` lines.
"""

from __future__ import annotations

from typing import TextIO

from lintkit.core.diagnostics import Diagnostic
from lintkit.report.model import Report, notes


def _escape_data(text: str) -> str:
    # The escaping GitHub's runner applies (toolkit/packages/core: escapeData).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    loc = d.location
    command = "error" if d.severity == "error" else "warning"
    properties = ",".join(f"{key}={_escape_property(str(value))}" for key, value in (
        ("file", loc.path), ("line", loc.line), ("col", loc.column), ("endLine", loc.end_line),
        ("endColumn", loc.end_column), ("title", f"{d.code} {d.name}")))
    lines = [d.message, *d.detail]
    lines += [f"note: {r.location.path}:{r.location.line}:{r.location.column}: {r.message}"
              for r in notes(d)]
    return f"::{command} {properties}::{_escape_data(chr(10).join(lines))}"


def write_github(report: Report, out: TextIO) -> None:
    for d in report.sorted():
        out.write(annotation(d) + "\n")
