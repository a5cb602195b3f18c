"""Positions of selected CST nodes from one light code-generation pass.

LibCST's ``PositionProvider`` records a ``CodeRange`` for every node of the tree, which costs
about twice the parse itself. We need positions for the few hundred nodes a file's facts
mention. This state lets LibCST regenerate the code into one list of its tokens: the hook
LibCST calls per token is that list's own ``append``, so the pass runs no Python code of
ours per token, and the hooks it calls per node only note the list's length where a wanted
node's code starts and ends. Afterwards those token counts are turned into offsets, and
the offsets into lines and columns. It relies on LibCST's ``CodegenState`` hooks (the same
ones the position providers use); the supported libcst range is pinned in
``pyproject.toml``.

Lines are counted at ``\\n`` and columns in code points, 1-based. A statement's span is its
syntactic range: it excludes the leading comments and blank lines that belong to it.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState

from lintkit.parsing.cstparse import flat_codegen

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


def node_spans(module: cst.Module, wanted: set[int]) -> dict[int, Span]:
    """Map ``id(node)`` to its span for every wanted node of ``module``."""
    if not wanted:
        return {}
    state = _CountingState(module, wanted)
    with flat_codegen():
        module._codegen(state)
    tokens = state.tokens
    bounds = state.bounds
    # Line and column at each bound: only the code between consecutive bounds is joined.
    points: dict[int, tuple[int, int]] = {}
    line, column, previous = 1, 0, 0
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
