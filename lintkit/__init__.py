"""lintkit: a kit for project-aware house rules on LibCST, and the engine of lion-lint.

The public API is importable from here: what a rule author needs (docs/writing-rules.md);
``lintkit.testing`` holds the test helpers. Names load on first use, so that importing
``lintkit`` (as ``lion-lint --version`` does) costs nothing.
"""

from __future__ import annotations

import os
import sys


def _run_as_module() -> bool:
    """Whether this interpreter was started as ``python [options] -m lintkit``."""
    for number, token in enumerate(getattr(sys, "orig_argv", [])[1:], 1):
        if token.startswith("-") and not token.startswith("--") and "m" in token[1:]:
            attached = token[token.index("m", 1) + 1:]  # -mlintkit
            following = sys.orig_argv[number + 1:number + 2]  # -m lintkit
            return (attached or "".join(following)) in ("lintkit", "lintkit.__main__")
    return False


# ``python -m lintkit`` puts the current directory first on sys.path. There, the project
# being checked (an ``ast.py``, a ``rich/`` of its own) would shadow the modules lion-lint
# imports later, and lion-lint never runs the code it checks. The package itself is
# already imported, and finds its submodules through its own __path__.
if _run_as_module() and sys.path and os.path.abspath(sys.path[0] or ".") == os.getcwd():
    del sys.path[0]

from typing import TYPE_CHECKING, Any  # noqa: E402

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
