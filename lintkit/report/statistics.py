"""``--statistics``: how many diagnostics each rule produced, instead of the diagnostics.

    2  LL001  structural-eq  [*] 1 fixable

Most first, then by code. With ``--output-format json`` the same rows are a JSON array.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from lintkit.report.model import Report


def rule_counts(report: Report) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for d in report.diagnostics:
        row = rows.setdefault(d.code, {"code": d.code, "name": d.name, "count": 0, "fixable": 0})
        row["count"] += 1
        row["fixable"] += d.fix is not None
    return sorted(rows.values(), key=lambda row: (-row["count"], row["code"]))


def write_statistics(report: Report, out: TextIO, *, as_json: bool = False) -> None:
    rows = rule_counts(report)
    if as_json:
        json.dump(rows, out, indent=2)
        out.write("\n")
        return
    if not rows:
        return
    count_width = max(len(str(row["count"])) for row in rows)
    code_width = max(len(row["code"]) for row in rows)
    name_width = max(len(row["name"]) for row in rows)
    for row in rows:
        line = (f"{row['count']:>{count_width}}  {row['code']:<{code_width}}  "
                f"{row['name']:<{name_width}}")
        if row["fixable"]:
            line += f"  [*] {row['fixable']} fixable"
        out.write(line.rstrip() + "\n")
