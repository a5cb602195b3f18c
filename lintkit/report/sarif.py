"""SARIF 2.1.0 (OASIS), the format GitHub code scanning and other dashboards read.

One run: the tool's driver describes every rule lion-lint knows (id, name, short and full
description, help from the rule's documentation); each diagnostic is a result with its
physical location, its related locations and its fix. Waived diagnostics are results too,
with an in-source suppression carrying the waiver's reason, as SARIF intends.

Paths are relative URIs under ``%SRCROOT%``, the directory lion-lint ran in; columns count
Unicode code points, as lion-lint's do.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from lintkit import __version__
from lintkit.core.diagnostics import Diagnostic, Edit, Location
from lintkit.core.rule import DOC_SECTIONS, Rule
from lintkit.report.json_format import dump_json
from lintkit.report.model import Report

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/lion-lint/lion-lint"
SRCROOT = "%SRCROOT%"


def _uri(path: str) -> str:
    # The file name's own bytes, percent-encoded: a name that is not UTF-8 stays exact.
    return quote(os.fsencode(path), safe="/")


def _region(line: int, column: int, end_line: int, end_column: int) -> dict[str, int]:
    return {"startLine": line, "startColumn": column, "endLine": end_line,
            "endColumn": end_column}


def _physical(location: Location) -> dict[str, Any]:
    return {"artifactLocation": {"uri": _uri(location.path), "uriBaseId": SRCROOT},
            "region": _region(location.line, location.column, location.end_line,
                              location.end_column)}


def _help_markdown(rule: type[Rule]) -> str:
    docs = rule.docs()
    return "\n\n".join(f"## {section}\n\n{docs[section]}" for section in DOC_SECTIONS
                       if docs[section])


def rule_descriptor(rule: type[Rule]) -> dict[str, Any]:
    docs = rule.docs()
    markdown = _help_markdown(rule)
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": docs["What it does"] or rule.summary},
        "help": {"text": markdown or rule.summary, "markdown": markdown or rule.summary},
        "defaultConfiguration": {"enabled": rule.default_enabled,
                                 "level": "error" if rule.severity == "error" else "warning"},
    }


def _fix(d: Diagnostic) -> dict[str, Any]:
    assert d.fix is not None
    by_path: dict[str, list[Edit]] = {}
    for edit in d.fix.edits:
        by_path.setdefault(edit.path, []).append(edit)
    return {"description": {"text": d.fix.description},
            "artifactChanges": [
                {"artifactLocation": {"uri": _uri(path), "uriBaseId": SRCROOT},
                 "replacements": [
                     {"deletedRegion": _region(e.line, e.column, e.end_line, e.end_column),
                      "insertedContent": {"text": e.replacement}} for e in edits]}
                for path, edits in sorted(by_path.items())]}


def _result(d: Diagnostic, rule_index: dict[str, int], reason: str | None) -> dict[str, Any]:
    text = "\n".join([d.message, *d.detail])
    result: dict[str, Any] = {"ruleId": d.code}
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    result["level"] = "error" if d.severity == "error" else "warning"
    result["message"] = {"text": text}
    result["locations"] = [{"physicalLocation": _physical(d.location)}]
    if d.related:
        result["relatedLocations"] = [
            {"id": number, "message": {"text": related.message},
             "physicalLocation": _physical(related.location)}
            for number, related in enumerate(d.related, start=1)]
    if d.fix is not None and d.fix.edits:
        result["fixes"] = [_fix(d)]
    if reason is not None:
        result["suppressions"] = [{"kind": "inSource", "justification": reason}]
    return result


def sarif_document(report: Report, cwd: Path) -> dict[str, Any]:
    rules = sorted({rule.code: rule for rule in report.rules}.values(), key=lambda r: r.code)
    rule_index = {rule.code: number for number, rule in enumerate(rules)}
    results = [_result(d, rule_index, None) for d in report.sorted()]
    results += [_result(s.diagnostic, rule_index, s.reason)
                for s in sorted(report.suppressed, key=lambda s: s.diagnostic.sort_key())]
    root = cwd.resolve().as_uri()
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "lion-lint", "version": __version__,
                                "semanticVersion": __version__,
                                "informationUri": INFORMATION_URI,
                                "rules": [rule_descriptor(rule) for rule in rules]}},
            "originalUriBaseIds": {SRCROOT: {"uri": root if root.endswith("/") else root + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def write_sarif(report: Report, out: TextIO, cwd: Path) -> None:
    dump_json(sarif_document(report, cwd), out)
