"""lintkit: a kit for project-aware house rules on LibCST, and the engine of lion-lint.

The public API is importable from here: what a rule author needs (docs/writing-rules.md);
``lintkit.testing`` holds the test helpers. Names load on first use, so that importing
``lintkit`` (as ``lion-lint --version`` does) costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Diagnostic": "lintkit.core.diagnostics",
    "Edit": "lintkit.core.diagnostics",
    "Fix": "lintkit.core.diagnostics",
    "Location": "lintkit.core.diagnostics",
    "Related": "lintkit.core.diagnostics",
    "BindingFact": "lintkit.core.facts",
    "CallFact": "lintkit.core.facts",
    "ClassFact": "lintkit.core.facts",
    "Expr": "lintkit.core.facts",
    "FileFacts": "lintkit.core.facts",
    "FunctionFact": "lintkit.core.facts",
    "ImportFact": "lintkit.core.facts",
    "MutationFact": "lintkit.core.facts",
    "Span": "lintkit.core.facts",
    "ModuleInfo": "lintkit.core.index",
    "ProjectIndex": "lintkit.core.index",
    "Project": "lintkit.core.project",
    "Expect": "lintkit.core.rule",
    "Invalid": "lintkit.core.rule",
    "Rule": "lintkit.core.rule",
    "RuleOptions": "lintkit.core.rule",
    "Valid": "lintkit.core.rule",
}

__all__ = ["__version__", *sorted(_EXPORTS)]

if TYPE_CHECKING:
    from lintkit.core.diagnostics import Diagnostic, Edit, Fix, Location, Related
    from lintkit.core.facts import (
        BindingFact,
        CallFact,
        ClassFact,
        Expr,
        FileFacts,
        FunctionFact,
        ImportFact,
        MutationFact,
        Span,
    )
    from lintkit.core.index import ModuleInfo, ProjectIndex
    from lintkit.core.project import Project
    from lintkit.core.rule import Expect, Invalid, Rule, RuleOptions, Valid


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'lintkit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value
