"""The JSON format: a stable, documented schema (see README, "JSON output").

    {"version": 1, "tool": "lion-lint", "diagnostics": [
        {"path", "line", "column", "end_line", "end_column", "code", "name", "message",
         "severity", "related": [{"path", "line", "column", "end_line", "end_column",
         "message"}], "detail": [str], "fix": null | {"description", "edits": [...]}}],
     "summary": {"files": int, "diagnostics": int, "suppressed": int}}
"""

from __future__ import annotations

import json
import re
from typing import Any, TextIO

from lintkit.core.diagnostics import Diagnostic
from lintkit.report.model import Report

SCHEMA_VERSION = 1


def diagnostic_to_json(d: Diagnostic) -> dict[str, Any]:
    loc = d.location
    fix = None
    if d.fix is not None:
        fix = {"description": d.fix.description,
               "edits": [{"path": e.path, "line": e.line, "column": e.column,
                          "end_line": e.end_line, "end_column": e.end_column,
                          "replacement": e.replacement} for e in d.fix.edits]}
    return {
        "path": loc.path,
        "line": loc.line,
        "column": loc.column,
        "end_line": loc.end_line,
        "end_column": loc.end_column,
        "code": d.code,
        "name": d.name,
        "message": d.message,
        "severity": d.severity,
        "related": [{**r.location.to_data(), "message": r.message} for r in d.related],
        "detail": list(d.detail),
        "fix": fix,
    }


def write_json(report: Report, out: TextIO) -> None:
    diagnostics = report.sorted()
    document = {
        "version": SCHEMA_VERSION,
        "tool": "lion-lint",
        "diagnostics": [diagnostic_to_json(d) for d in diagnostics],
        "suppressed": [{**diagnostic_to_json(s.diagnostic), "reason": s.reason}
                       for s in sorted(report.suppressed, key=lambda s: s.diagnostic.sort_key())],
        "summary": {"files": report.files_checked, "diagnostics": len(diagnostics),
                    "suppressed": len(report.suppressed)},
    }
    dump_json(document, out)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dump_json(document: Any, out: TextIO) -> None:
    """Write ``document`` as indented JSON, non-ASCII text as is, ending with a newline.

    A file name that is not valid UTF-8 reaches us with its odd bytes as lone surrogates
    (Python's surrogateescape); written raw they would make the document invalid UTF-8, so
    they are written as ``\\udcXX`` escapes, which JSON readers in Python turn back into
    the same path."""
    text = json.dumps(document, indent=2, ensure_ascii=False)
    out.write(_LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))
    out.write("\n")
