"""LibCST's parser without the per-node re-validation.

Every node LibCST builds runs ``_validate()`` from its ``__post_init__``: checks meant for
trees written by hand (a keyword needs a space after it, a name must be an identifier, ...).
A tree straight from LibCST's own parser has already been checked by the grammar, and the
re-validation costs about a third of the parse (LibCST's source says as much beside
``CSTNode.__post_init__``). ``parse_module`` turns it off for the duration of the parse
only; nodes built anywhere else are validated as usual. The result is the same tree: phase
1's facts are compared with and without it in the tests.
"""

from __future__ import annotations

import libcst as cst
from libcst._nodes.base import CSTNode

_validating_post_init = CSTNode.__post_init__


def _no_validation(self: CSTNode) -> None:
    pass


def parse_module(source: bytes | str) -> cst.Module:
    """``cst.parse_module(source)``, minus the redundant validation of each new node."""
    # Only CSTNode defines __post_init__ (no node class overrides it), so swapping it there
    # reaches every node the parser creates. Not thread-safe: phase 1 parses on one thread.
    if "__post_init__" in CSTNode.__dict__ and CSTNode.__post_init__ is _validating_post_init:
        CSTNode.__post_init__ = _no_validation  # type: ignore[method-assign]
        try:
            return cst.parse_module(source)
        finally:
            CSTNode.__post_init__ = _validating_post_init  # type: ignore[method-assign]
    return cst.parse_module(source)
