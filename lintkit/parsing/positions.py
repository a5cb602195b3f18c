"""Positions of selected CST nodes from one light code-generation pass.

LibCST's ``PositionProvider`` records a ``CodeRange`` for every node of the tree, which costs
about twice the parse itself. We need positions for the few hundred nodes a file's facts
mention, so this state tracks line and column while LibCST regenerates the code, and records
only the nodes asked for. It relies on LibCST's ``CodegenState`` hooks (the same ones the
position providers use); the supported libcst range is pinned in ``pyproject.toml``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import libcst as cst
from libcst._nodes.internal import CodegenState

Span = tuple[int, int, int, int]


class _PositionState(CodegenState):
    __slots__ = ("line", "column", "wanted", "starts", "syntactic", "spans")

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        self.line = 1
        self.column = 0
        self.wanted = wanted
        self.starts: dict[int, tuple[int, int]] = {}
        self.syntactic: set[int] = set()
        self.spans: dict[int, Span] = {}

    def _advance(self, text: str) -> None:
        newlines = text.count("\n")
        if newlines:
            self.line += newlines
            self.column = len(text) - text.rfind("\n") - 1
        else:
            self.column += len(text)

    def add_token(self, value: str) -> None:
        self._advance(value)

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self._advance(token)

    def pop_trailing_newline(self) -> None:
        pass

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted:
            self.starts[key] = (self.line, self.column)

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.syntactic:
            line, column = self.starts[key]
            self.spans[key] = (line, column + 1, self.line, self.column + 1)

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        key = id(node)
        if key not in self.wanted:
            yield
            return
        line, column = self.line, self.column
        yield
        # A statement's syntactic range excludes its leading comments and blank lines.
        self.syntactic.add(key)
        self.spans[key] = (line, column + 1, self.line, self.column + 1)


def node_spans(module: cst.Module, wanted: set[int]) -> dict[int, Span]:
    """Map ``id(node)`` to its span for every wanted node of ``module``."""
    if not wanted:
        return {}
    state = _PositionState(module, wanted)
    module._codegen(state)
    return state.spans
