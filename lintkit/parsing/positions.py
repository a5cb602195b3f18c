"""Positions of selected CST nodes from one light code-generation pass.

LibCST's ``PositionProvider`` records a ``CodeRange`` for every node of the tree, which costs
about twice the parse itself. We need positions for the few hundred nodes a file's facts
mention. This state lets LibCST regenerate the code into one list of its tokens: the hook
LibCST calls per token is that list's own ``append``, so the pass runs no Python code of
ours per token, and where a wanted node's own code starts and ends (LibCST's
``record_syntactic_position``, which every expression and statement calls) it notes the
list's length. Afterwards those token counts are turned into offsets, and the offsets into
lines and columns. It relies on LibCST's ``CodegenState`` hooks (the same ones the position
providers use); the supported libcst range is pinned in ``pyproject.toml``.

The pass calls no hook per node (``flat_codegen(hooks=False)``), and an expression without
parentheses whose position nobody wants skips the generator-based context manager LibCST
builds around it (``_parenthesize``): about a third of the pass. A wanted node that records
no syntactic position (none that phase 1 asks about today) is found by a second pass with
the per-node hooks.

Lines are counted at ``\\n`` and columns in code points, 1-based. A statement's span is its
syntactic range: it excludes the leading comments and blank lines that belong to it.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import libcst as cst
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst._nodes.internal import CodegenState

from lintkit.parsing.cstparse import flat_codegen, swapped

Span = tuple[int, int, int, int]

_OUTSIDE = nullcontext()


class _Syntactic:
    """Records where a wanted statement's own code starts and ends (as token counts)."""

    __slots__ = ("tokens", "bounds", "key", "start")

    def __init__(self, tokens: list[str], bounds: dict[int, tuple[int, int]], key: int) -> None:
        self.tokens = tokens
        self.bounds = bounds
        self.key = key
        self.start = 0

    def __enter__(self) -> None:
        self.start = len(self.tokens)

    def __exit__(self, *exc_info: object) -> None:
        self.bounds[self.key] = (self.start, len(self.tokens))


class _CountingState(CodegenState):
    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        self.wanted = wanted
        self.starts: dict[int, int] = {}
        self.bounds: dict[int, tuple[int, int]] = {}  # node id -> token counts at start, end
        self.syntactic: set[int] = set()
        # LibCST calls add_token for every token: the list's own append runs no Python code.
        self.add_token = self.tokens.append  # type: ignore[method-assign]

    def pop_trailing_newline(self) -> None:
        pass  # the module's end is nobody's position

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted:
            self.starts[key] = len(self.tokens)

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.syntactic:
            self.bounds[key] = (self.starts[key], len(self.tokens))

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Any:
        key = id(node)
        if key in self.wanted:
            # A statement's syntactic range excludes its leading comments and blank lines.
            self.syntactic.add(key)
            return _Syntactic(self.tokens, self.bounds, key)
        return _OUTSIDE


_libcst_parenthesize = _BaseParenthesizedNode._parenthesize


class _Parenthesized:
    """What LibCST's ``_parenthesize`` does, as a plain context manager: the node's opening
    parentheses, its own code (its syntactic position) and its closing parentheses."""

    __slots__ = ("node", "state", "inner")

    def __init__(self, node: Any, state: _CountingState) -> None:
        self.node = node
        self.state = state

    def __enter__(self) -> None:
        node, state = self.node, self.state
        for lpar in node.lpar:
            lpar._codegen(state)
        self.inner = state.record_syntactic_position(node)
        self.inner.__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        self.inner.__exit__(*exc_info)
        if exc_info[0] is None:  # as LibCST's generator: no closing parentheses after an error
            for rpar in self.node.rpar:
                rpar._codegen(self.state)


def _parenthesize(node: Any, state: _CountingState) -> Any:
    if not node.lpar and id(node) not in state.wanted:
        return _OUTSIDE  # nothing to write around it, and nothing to note
    return _Parenthesized(node, state)


def node_spans(module: cst.Module, wanted: set[int], first_line: int = 1) -> dict[int, Span]:
    """Map ``id(node)`` to its span for every wanted node of ``module``, whose code begins
    on line ``first_line`` of its file (a piece of a module: ``lintkit.parsing.pieces``)."""
    if not wanted:
        return {}
    state = _CountingState(module, wanted)
    with flat_codegen(hooks=False), swapped(_BaseParenthesizedNode, "_parenthesize",
                                            _libcst_parenthesize, _parenthesize):
        module._codegen(state)
    if len(state.bounds) < len(wanted):
        state = _CountingState(module, wanted)
        with flat_codegen():
            module._codegen(state)
    tokens = state.tokens
    bounds = state.bounds
    # Line and column at each bound: only the code between consecutive bounds is joined.
    points: dict[int, tuple[int, int]] = {}
    line, column, previous = first_line, 0, 0
    for count in sorted({c for pair in bounds.values() for c in pair}):
        text = "".join(tokens[previous:count])
        if "\r" in text:  # CRLF or a lone CR (old Mac files) ends a line as LF does
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        newlines = text.count("\n")
        if newlines:
            line += newlines
            column = len(text) - text.rfind("\n") - 1
        else:
            column += len(text)
        points[count] = (line, column + 1)
        previous = count
    return {key: (*points[start], *points[end]) for key, (start, end) in bounds.items()}
