"""LibCST, run the way phase 1 needs it: two of its methods swapped for the duration of a pass.

Parsing: every node LibCST builds runs ``_validate()`` from its ``__post_init__``: checks
meant for trees written by hand (a keyword needs a space after it, a name must be an
identifier, ...). A tree straight from LibCST's own parser has already been checked by the
grammar, and the re-validation costs about a third of the parse (LibCST's source says as
much beside ``CSTNode.__post_init__``). ``parse_module`` turns it off for the duration of
the parse only; nodes built anywhere else are validated as usual. The result is the same
tree: phase 1's facts are compared with and without it in the tests.

Code generation (the positions pass): see ``flat_codegen``. ``swapped`` is how any such swap
is made, here and in ``lintkit.parsing.positions``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import libcst as cst
from libcst._nodes.base import CSTNode
from libcst._nodes.internal import CodegenState

_validating_post_init = CSTNode.__post_init__
_libcst_codegen = CSTNode._codegen


def _no_validation(self: CSTNode) -> None:
    pass


def _codegen(self: CSTNode, state: CodegenState, **kwargs: Any) -> None:
    state.before_codegen(self)
    if kwargs:
        # A plain function called with **kwargs stays in the interpreter's own loop.
        type(self)._codegen_impl(self, state, **kwargs)  # type: ignore[call-arg]
    else:
        self._codegen_impl(state)
    state.after_codegen(self)


def _codegen_without_hooks(self: CSTNode, state: CodegenState, **kwargs: Any) -> None:
    # The dispatch of _codegen, not a call to a shared one: that would be one more call per
    # node, and passing **kwargs on would send it through C again.
    if kwargs:
        type(self)._codegen_impl(self, state, **kwargs)  # type: ignore[call-arg]
    else:
        self._codegen_impl(state)


@contextmanager
def swapped(owner: type, name: str, original: Callable[..., Any],
            replacement: Callable[..., Any]) -> Iterator[None]:
    """``owner.<name>`` is ``replacement`` inside the block. The methods swapped are defined
    once, on a base class that no node class overrides, so the swap reaches every node; if
    LibCST ever changes that, or the swap is already in place, nothing is swapped. Not
    thread-safe: phase 1 runs one pass at a time."""
    if owner.__dict__.get(name) is not original:
        yield
        return
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        setattr(owner, name, original)


def parse_module(source: bytes | str) -> cst.Module:
    """``cst.parse_module(source)``, minus the redundant validation of each new node."""
    with swapped(CSTNode, "__post_init__", _validating_post_init, _no_validation):
        return cst.parse_module(source)


def flat_codegen(hooks: bool = True) -> Any:
    """A block in which LibCST's code generation recurses in Python alone; with
    ``hooks=False``, also without calling the state's ``before_codegen`` and
    ``after_codegen`` for every node (two calls per node, a fifth of the pass), for a state
    that reads positions from ``record_syntactic_position`` alone.

    ``CSTNode._codegen`` hands its keywords to the node's ``_codegen_impl`` as
    ``self._codegen_impl(state, **kwargs)``. Python 3.12 runs such a call of a bound method
    through C, and counts each one against a fixed C recursion limit that
    ``sys.setrecursionlimit`` does not raise (3.13 runs it the same way, with room for
    thousands more): so on 3.12 the code of a chain of 800 links (``a + a + ...``,
    ``a.b.b...`` or 800 implicitly concatenated strings, as in the standard library's own
    ``pydoc_data/topics.py``) could not be generated, and a valid file came out as
    "nesting too deep". The replacement does the same in the same order, with calls the
    interpreter keeps in its own loop, so a deep tree needs only the recursion limit and
    stack that ``lintkit.parsing.guard.with_deep_stack`` provides."""
    return swapped(CSTNode, "_codegen", _libcst_codegen,
                   _codegen if hooks else _codegen_without_hooks)
