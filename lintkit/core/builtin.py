"""Diagnostics the engine itself produces. They are rules only so that ``lion-lint rules``,
``explain`` and SARIF describe them like any other; their checks live in the engine."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from lintkit.core.diagnostics import Diagnostic
from lintkit.core.rule import Rule

if TYPE_CHECKING:
    from lintkit.core.project import Project


class _EngineRule(Rule):
    def check(self, project: Project) -> Iterable[Diagnostic]:
        return ()


class SyntaxErrorRule(_EngineRule):
    """A file lion-lint could not parse or read.

    ## What it does
    Reports a file that does not parse (or cannot be decoded or read) at the line and column
    where parsing failed, with the reason. The rest of the run goes on.

    ## Why it matters
    A file the linter cannot read is a file no gate has checked. Reporting it keeps a broken
    or unreadable file from passing silently.

    ## Example
    ```python
    def broken(:
        pass
    ```

    ## How to fix
    Fix the syntax error (or the file's encoding or permissions) so that it parses.
    """

    code = "LL000"
    name = "syntax-error"
    summary = "A file could not be parsed, decoded or read"


class UnusedSuppression(_EngineRule):
    """A suppression comment that suppresses nothing.

    ## What it does
    Reports a `# lion-lint: ignore[CODE] -- reason` comment when no diagnostic of the named
    codes is reported on the lines it covers.

    ## Why it matters
    Waivers outlive the code they excused. A stale waiver would silently excuse the next
    violation that lands on that line.

    ## Example
    ```python
    x = 1  # lion-lint: ignore[LL001] -- nothing here to excuse
    ```

    ## How to fix
    Delete the comment, or the codes in it that no longer fire.
    """

    code = "LL901"
    name = "unused-suppression"
    summary = "A suppression comment suppresses nothing"


class SuppressionWithoutReason(_EngineRule):
    """A suppression comment without codes or without a reason.

    ## What it does
    Reports a `# lion-lint: ignore...` comment that does not name the codes it suppresses in
    brackets or does not give a reason after `--`. Such a comment suppresses nothing.

    ## Why it matters
    ADR-0119 lets a declaration override a house rule only with a declared reason. The reason
    is the audit trail: `lion-lint --show-suppressed` lists every waiver with it.

    ## Example
    ```python
    def __eq__(self, other):  # lion-lint: ignore[LL001]
        ...
    ```

    ## How to fix
    Name the codes and say why: `# lion-lint: ignore[LL001] -- compares by id, see ADR-0001`.
    """

    code = "LL902"
    name = "suppression-without-reason"
    summary = "A suppression comment lacks codes or a reason"


class StaleBaselineEntry(_EngineRule):
    """A baseline entry that no longer matches any diagnostic.

    ## What it does
    Reports an entry of the baseline file (`--baseline FILE` or `baseline` in
    `[tool.lion-lint]`) that matches fewer diagnostics than it records: the violation was
    fixed, or the offending line or its enclosing definition changed. It is reported at the
    entry's line in the baseline file, for entries whose file was checked in this run and
    whose rule ran.

    ## Why it matters
    A baseline lets a team turn a gate on for new code while old violations are paid down.
    It must only shrink: an entry left behind after its violation is fixed would silently
    excuse the next identical violation in that scope.

    ## Example
    ```json
    {"path": "src/pkg/ops.py", "code": "LL003", "scope": "pkg.ops.ops",
     "fingerprint": "@route('/ops')", "count": 1}
    ```
    (after `@route('/ops')` was removed from `pkg.ops.ops`)

    ## How to fix
    Delete the entry (or lower its count), or rewrite the baseline from the current state
    with `lion-lint --write-baseline FILE` and commit the smaller file.
    """

    code = "LL903"
    name = "stale-baseline-entry"
    summary = "A baseline entry matches no diagnostic any more"


ENGINE_RULES: tuple[type[Rule], ...] = (SyntaxErrorRule, UnusedSuppression, SuppressionWithoutReason,
                                        StaleBaselineEntry)
