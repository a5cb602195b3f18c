"""Apply ``# lion-lint: ignore[...] -- reason`` comments to a file's diagnostics.

A trailing comment covers its own line; a comment alone on a line covers the next line.
Either one, when the covered line belongs to a class or function header (decorators through
the ``class``/``def`` line), covers the whole header, so a waiver above a decorated class
covers diagnostics reported at the class name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lintkit.core.diagnostics import Diagnostic, Location
from lintkit.core.facts import FileFacts, SuppressionFact

UNSUPPRESSIBLE = frozenset({"LL000", "LL901", "LL902"})


@dataclass(frozen=True)
class Suppressed:
    diagnostic: Diagnostic
    reason: str
    comment: Location


def _covered_lines(facts: FileFacts, comment: SuppressionFact) -> range:
    line = comment.line + 1 if comment.own_line else comment.line
    for header in [c.header for c in facts.classes] + [f.header for f in facts.functions]:
        if header[0] <= line <= header[2]:
            return range(header[0], header[2] + 1)
    return range(line, line + 1)


def apply_suppressions(
    facts: FileFacts,
    diagnostics: list[Diagnostic],
    active_codes: set[str],
    rule_names: dict[str, str],
) -> tuple[list[Diagnostic], list[Suppressed], list[Diagnostic]]:
    """Split a file's diagnostics into kept and suppressed, and report bad or unused
    comments (LL902, LL901) for the active codes."""
    if not facts.suppressions:
        return diagnostics, [], []
    valid: list[tuple[SuppressionFact, range, frozenset[str]]] = []
    problems: list[Diagnostic] = []
    # A rule may be named as --select names it; a name or code no rule on offer has would
    # waive nothing and never turn stale, so it is reported.
    code_of = {**{name: code for code, name in rule_names.items()},
               **{code: code for code in rule_names}}
    for comment in facts.suppressions:
        location = Location(facts.path, comment.line, comment.column, comment.line,
                            comment.end_column)
        if not comment.codes or not comment.reason:
            missing = "codes in brackets" if not comment.codes else "a reason after '--'"
            problems.append(Diagnostic(location, "LL902", rule_names.get("LL902", "LL902"),
                                       f"suppression comment lacks {missing}; it suppresses "
                                       "nothing"))
            continue
        unknown = [c for c in comment.codes if c not in code_of]
        if unknown:
            problems.append(Diagnostic(location, "LL902", rule_names.get("LL902", "LL902"),
                                       f"suppression comment names no known rule: "
                                       f"{', '.join(unknown)}; that part suppresses nothing"))
        codes = frozenset(code_of[c] for c in comment.codes if c in code_of)
        if codes:
            valid.append((comment, _covered_lines(facts, comment), codes))
    kept: list[Diagnostic] = []
    suppressed: list[Suppressed] = []
    used: set[tuple[int, str]] = set()
    for diagnostic in diagnostics:
        waiver = None
        if diagnostic.code not in UNSUPPRESSIBLE:
            for comment, lines, codes in valid:
                if diagnostic.code in codes and diagnostic.location.line in lines:
                    waiver = comment
                    break
        if waiver is None:
            kept.append(diagnostic)
        else:
            used.add((waiver.line, diagnostic.code))
            suppressed.append(Suppressed(diagnostic, waiver.reason, Location(
                facts.path, waiver.line, waiver.column, waiver.line, waiver.end_column)))
    for comment, _, codes in valid:
        unused = [c for c in sorted(codes) if c in active_codes and (comment.line, c) not in used]
        if unused:
            location = Location(facts.path, comment.line, comment.column, comment.line,
                                comment.end_column)
            problems.append(Diagnostic(location, "LL901", rule_names.get("LL901", "LL901"),
                                       f"unused suppression: no {', '.join(unused)} diagnostic "
                                       "on the lines it covers"))
    return kept, suppressed, problems


def group_by_path(diagnostics: Iterable[Diagnostic]) -> dict[str, list[Diagnostic]]:
    grouped: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        grouped.setdefault(diagnostic.path, []).append(diagnostic)
    return grouped
