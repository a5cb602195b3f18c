"""Phase 1: parse one file with LibCST and extract its facts.

The walk is hand-written rather than a ``CSTVisitor``: measured on LionAGI, a visitor over
every node costs more than the parse itself, while this walk descends statements by their
known shape and expressions through a per-type list of child fields (trivia skipped), and
costs a small fraction of it.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from lintkit.core.facts import (
    NO_SPAN,
    BindingFact,
    CallFact,
    ClassFact,
    Expr,
    FileFacts,
    FunctionFact,
    ImportFact,
    MutationFact,
    ParseError,
    When,
)
from lintkit.parsing.cstparse import parse_module
from lintkit.parsing.guard import screen, with_deep_stack
from lintkit.parsing.pieces import PIECEWISE_MIN_BYTES, pieces
from lintkit.parsing.positions import node_spans
from lintkit.parsing.suppressions import find_suppressions

#: Entered around each LibCST parse, with the length of what it parses (the module's
#: bytes, or a piece's characters).
Admission = Callable[[int], AbstractContextManager[object]]

_MAX_DEPTH = 8  # expression summaries nest no deeper (calls inside are still recorded)
_MAX_ITEMS = 2000  # container literals longer than this summarise as "other"

# Fields that hold only whitespace, punctuation or operators: never worth descending into.
_TRIVIA_FIELDS = frozenset({
    "lpar", "rpar", "lbracket", "rbracket", "lbrace", "rbrace", "comma", "semicolon",
    "colon", "equal", "dot", "operator", "leading_lines", "lines_after_decorators",
    "header", "footer", "trailing_whitespace", "newline", "first_line", "asynchronous",
    "whitespace_after_star", "whitespace_after_arg", "whitespace_before_args",
    "whitespace_after_func", "whitespace_before_params", "whitespace_after_at",
    "whitespace_before", "whitespace_after", "whitespace_after_in", "whitespace_before_in",
    "whitespace_after_await", "whitespace_after_lambda", "whitespace_after_colon",
    "whitespace_before_colon", "whitespace_after_indent", "whitespace_before_indent",
    "whitespace_after_if", "whitespace_before_if", "whitespace_before_else",
    "whitespace_after_else", "whitespace_after_for", "whitespace_before_for",
    "whitespace_before_walrus", "whitespace_after_walrus", "whitespace_after_return",
    "whitespace_after_yield", "whitespace_before_from", "whitespace_after_from",
    "whitespace_before_value",
})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found.add(sub)
        found |= _subclasses(sub)
    return found


# Every CST node is an instance of one of these concrete classes. Testing membership of the
# node's type is exact and, unlike isinstance against LibCST's ABCs (a Python-level
# __instancecheck__ per call), costs almost nothing: the walk makes millions of such tests.
_NODE_TYPES = frozenset(c for c in _subclasses(cst.CSTNode) if not getattr(c, "__abstractmethods__", None))
#: The text of each augmented assignment's operator.
_AUGMENTED_OPERATORS: dict[type, str] = {
    cst.AddAssign: "+=", cst.SubtractAssign: "-=", cst.MultiplyAssign: "*=",
    cst.MatrixMultiplyAssign: "@=", cst.DivideAssign: "/=", cst.FloorDivideAssign: "//=",
    cst.ModuloAssign: "%=", cst.PowerAssign: "**=", cst.LeftShiftAssign: "<<=",
    cst.RightShiftAssign: ">>=", cst.BitAndAssign: "&=", cst.BitOrAssign: "|=",
    cst.BitXorAssign: "^=",
}
_SKIPPED_TYPES = frozenset({cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.Comment,
                            cst.Newline})


def _child_fields(node_type: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(node_type)
    if names is None:
        names = tuple(
            f.name for f in dataclasses.fields(node_type)
            if f.name not in _TRIVIA_FIELDS and not f.name.startswith("whitespace")
        )
        _CHILD_FIELDS[node_type] = names
    return names


def _holds_nodes(node_type: type) -> bool:
    """Whether a node of this type can have children that the walk looks into: a name, a
    literal or an operator holds only text, and about half of the nodes a walk meets are
    such leaves."""
    walked = set(_child_fields(node_type))
    return any(f.type not in (str, "str") for f in dataclasses.fields(node_type)
               if f.name in walked)


# The node types worth pushing on a walk's stack: not whitespace or comments, not leaves.
_WALKED_TYPES = frozenset(t for t in _NODE_TYPES - _SKIPPED_TYPES if _holds_nodes(t))


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        kind = type(value)
        if kind in _WALKED_TYPES:
            out.append(value)
        elif kind is tuple or kind is list:
            out.extend(v for v in value if type(v) in _WALKED_TYPES)
    return out


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain; a bare call link renders as ``super().f``."""
    parts: list[str] = []
    while True:
        kind = type(node)
        if kind is cst.Name:
            parts.append(node.value)
            return ".".join(reversed(parts))
        if kind is cst.Attribute:
            parts.append(node.attr.value)
            node = node.value
        elif kind is cst.Call and not node.args:
            inner = dotted_name(node.func)
            if inner is None:
                return None
            parts.append(inner + "()")
            return ".".join(reversed(parts))
        else:
            return None


@dataclass(frozen=True, slots=True)
class _Ctx:
    scope: str = ""
    scope_is_function: bool = False
    when: When = "import"
    guard: str | None = None
    getattr_param: str | None = None  # inside a module ``__getattr__``: its parameter name

    def qualname(self, name: str) -> str:
        if not self.scope:
            return name
        return f"{self.scope}.<locals>.{name}" if self.scope_is_function else f"{self.scope}.{name}"


class _FunctionFrame:
    __slots__ = ("locals", "globals", "returns")

    def __init__(self) -> None:
        self.locals: set[str] = set()
        self.globals: set[str] = set()
        self.returns: list[Expr] = []


class _Extractor:
    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.pending: list[tuple[Any, str, cst.CSTNode]] = []
        self.wanted: set[int] = set()
        self.frames: list[_FunctionFrame] = []
        self.type_checking_names = {"TYPE_CHECKING"}
        self.lambdas: list[Expr] = []
        # A call's summary, by its node, once made without reaching _MAX_DEPTH: a nested
        # call is summarised inside its caller and again for its own CallFact, and sharing
        # the one object keeps that from costing twice (here, in the cache and in memory).
        self.call_summaries: dict[int, Expr] = {}
        self.truncated = False  # whether the summary being made reached _MAX_DEPTH

    # --- positions ------------------------------------------------------------------------

    def _at(self, obj: Any, attr: str, node: cst.CSTNode) -> None:
        self.pending.append((obj, attr, node))
        self.wanted.add(id(node))

    def resolve_positions(self, module: cst.Module, first_line: int = 1) -> None:
        """Give the facts taken from ``module`` (a module, or a piece of one whose code
        begins on line ``first_line``) their positions, and let go of its nodes."""
        spans = node_spans(module, self.wanted, first_line)
        for obj, attr, node in self.pending:
            span = spans.get(id(node), NO_SPAN)
            if attr == "keyword_line":
                setattr(obj, attr, span[0])
            elif attr == "header_end":
                start = obj.header
                obj.header = (start[0], start[1], span[0], span[1])
            elif attr == "header_start":
                old = obj.header
                obj.header = (span[0], span[1], old[2], old[3])
            else:
                setattr(obj, attr, span)
        # Keyed by node and by id(node): a later piece's nodes may reuse the ids.
        self.pending.clear()
        self.wanted.clear()
        self.call_summaries.clear()

    # --- expressions -------------------------------------------------------------------------

    def expr(self, node: cst.CSTNode, depth: int = 0) -> Expr:
        if type(node) is cst.Call:
            return self._call_summary(node, depth)
        out = self._summarise(node, depth)
        self._at(out, "span", node)
        return out

    def _call_summary(self, node: cst.Call, depth: int) -> Expr:
        known = self.call_summaries.get(id(node))
        if known is not None:
            return known
        outer, self.truncated = self.truncated, False
        out = self._summarise(node, depth)
        self._at(out, "span", node)
        # A summary cut short by its depth differs from the call's own: never shared.
        if not self.truncated:
            self.call_summaries[id(node)] = out
        self.truncated = self.truncated or outer
        return out

    def _summarise(self, node: cst.CSTNode, depth: int) -> Expr:  # noqa: C901 - one dispatch
        # Exact types, not isinstance: these classes are concrete and never subclassed.
        kind = type(node)
        if kind is cst.Name:
            if node.value in ("True", "False", "None"):
                value = {"True": True, "False": False, "None": None}[node.value]
                return Expr("const", text=type(value).__name__, value=value)
            return Expr("ref", text=node.value)
        if depth > _MAX_DEPTH:
            self.truncated = True
            return Expr("other", text=type(node).__name__)
        if kind is cst.Attribute:
            name = dotted_name(node)
            if name:
                return Expr("ref", text=name)
            return Expr("attr", text=node.attr.value, func=self.expr(node.value, depth + 1))
        if kind is cst.Call:
            return self._call(node, depth)
        if kind is cst.SimpleString or kind is cst.ConcatenatedString:
            try:
                value = _string_value(node)
            except Exception:  # an invalid escape or the like: still a string literal
                value = None
            if isinstance(value, bytes):
                return Expr("const", text="bytes", value=None)
            return Expr("const", text="str", value=value)
        if kind is cst.Integer or kind is cst.Float:
            try:
                value = node.evaluated_value
            except Exception:
                value = None
            return Expr("const", text=type(value).__name__, value=value)
        if kind is cst.Ellipsis:
            return Expr("const", text="ellipsis")
        if kind is cst.Tuple or kind is cst.List or kind is cst.Set:
            if len(node.elements) > _MAX_ITEMS:
                return Expr("other", text=type(node).__name__)
            items = tuple(self._element(e, depth) for e in node.elements)
            return Expr(type(node).__name__.lower(), items=items)
        if kind is cst.Dict:
            if len(node.elements) > _MAX_ITEMS:
                return Expr("other", text="Dict")
            keys: list[Expr] = []
            values: list[Expr | None] = []
            for element in node.elements:
                if type(element) is cst.DictElement:
                    keys.append(self.expr(element.key, depth + 1))
                    values.append(self.expr(element.value, depth + 1))
                else:
                    keys.append(Expr("starred", func=self.expr(element.value, depth + 1)))
                    values.append(None)
            return Expr("dict", items=tuple(keys), values=tuple(values))
        if kind is cst.Subscript:
            items = tuple(
                self.expr(e.slice.value, depth + 1)
                for e in node.slice if type(e.slice) is cst.Index
            )
            return Expr("sub", items=items, func=self.expr(node.value, depth + 1))
        if kind is cst.BinaryOperation and type(node.operator) is cst.BitOr:
            # ``X | None`` in annotations: rules must see both sides of a union.
            return Expr("union", items=(self.expr(node.left, depth + 1),
                                        self.expr(node.right, depth + 1)))
        if kind is cst.Lambda:
            params = ",".join(p.name.value for p in node.params.params)
            return Expr("lambda", text=params, func=self.expr(node.body, depth + 1))
        if (kind is cst.UnaryOperation and type(node.operator) is cst.Minus
                and type(node.expression) in (cst.Integer, cst.Float)):
            inner = self._summarise(node.expression, depth + 1)
            if isinstance(inner.value, (int, float)):
                return Expr("const", text=inner.text, value=-inner.value)
        return Expr("other", text=type(node).__name__)

    def _element(self, element: cst.BaseElement, depth: int) -> Expr:
        if type(element) is cst.StarredElement:
            return Expr("starred", func=self.expr(element.value, depth + 1))
        return self.expr(element.value, depth + 1)

    def _call(self, node: cst.Call, depth: int) -> Expr:
        args: list[Expr] = []
        keywords: list[tuple[str, Expr]] = []
        for arg in node.args:
            value = self.expr(arg.value, depth + 1)
            if arg.keyword is not None:
                keywords.append((arg.keyword.value, value))
            elif arg.star == "**":
                keywords.append(("**", value))
            elif arg.star == "*":
                starred = Expr("starred", func=value)
                self._at(starred, "span", arg.value)
                args.append(starred)
            else:
                args.append(value)
        return Expr("call", items=tuple(args), keywords=tuple(keywords),
                    func=self.expr(node.func, depth + 1))

    # --- scanning expressions for calls and walrus bindings --------------------------------------

    def scan(self, node: cst.CSTNode | None, ctx: _Ctx) -> None:
        if node is None:
            return
        stack = [node]
        while stack:
            current = stack.pop()
            kind = type(current)
            if kind is cst.Call:
                self.facts.calls.append(CallFact(self.expr(current), ctx.scope, ctx.when, ctx.guard))
            elif kind is cst.NamedExpr and type(current.target) is cst.Name:
                self._bind(current.target.value, current.target, "walrus",
                           current.value, None, ctx)
            elif kind is cst.Lambda:
                marker = Expr("lambda")
                self._at(marker, "span", current)
                self.lambdas.append(marker)
            stack.extend(reversed(_children(current)))

    # --- statements --------------------------------------------------------------------------

    def block(self, body: Any, ctx: _Ctx) -> None:
        statements = body.body if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else body
        for statement in statements:
            self.statement(statement, ctx)

    def statement(self, node: cst.CSTNode, ctx: _Ctx) -> None:  # noqa: C901 - one dispatch
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.small_statement(small, ctx)
        elif isinstance(node, cst.BaseSmallStatement):
            self.small_statement(node, ctx)
        elif isinstance(node, cst.ClassDef):
            self.class_def(node, ctx)
        elif isinstance(node, cst.FunctionDef):
            self.function_def(node, ctx)
        elif isinstance(node, cst.If):
            self.if_statement(node, ctx)
        elif isinstance(node, cst.Try) or type(node).__name__ == "TryStar":
            self.block(node.body, ctx)
            for handler in node.handlers:
                self.scan(handler.type, ctx)
                if handler.name is not None and isinstance(handler.name.name, cst.Name):
                    self._bind(handler.name.name.value, handler.name.name, "except", None, None, ctx)
                self.block(handler.body, ctx)
            if node.orelse is not None:
                self.block(node.orelse.body, ctx)
            if node.finalbody is not None:
                self.block(node.finalbody.body, ctx)
        elif isinstance(node, (cst.For, cst.While)):
            if isinstance(node, cst.For):
                self.scan(node.iter, ctx)
                self._bind_target(node.target, "for", None, ctx)
            else:
                self.scan(node.test, ctx)
            self.block(node.body, ctx)
            if node.orelse is not None:
                self.block(node.orelse.body, ctx)
        elif isinstance(node, cst.With):
            for item in node.items:
                self.scan(item.item, ctx)
                if item.asname is not None:
                    self._bind_target(item.asname.name, "with", None, ctx)
            self.block(node.body, ctx)
        elif isinstance(node, cst.Match):
            self.scan(node.subject, ctx)
            for case in node.cases:
                self.block(case.body, ctx)
        elif isinstance(node, cst.BaseCompoundStatement) and hasattr(node, "body"):
            self.block(node.body, ctx)

    def if_statement(self, node: cst.If, ctx: _Ctx) -> None:
        self.scan(node.test, ctx)
        body_ctx, else_ctx = ctx, ctx
        test = node.test
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        inner = test.expression if negated else test
        if self._is_type_checking(inner):
            checked = replace(ctx, when="typing")
            body_ctx, else_ctx = (ctx, checked) if negated else (checked, ctx)
        elif not ctx.scope and ctx.when == "import" and _is_main_guard(test):
            body_ctx = replace(ctx, when="main")
        elif ctx.getattr_param is not None:
            guard = _guard_name(test, ctx.getattr_param)
            if guard is not None:
                body_ctx = replace(ctx, guard=guard)
        self.block(node.body, body_ctx)
        if isinstance(node.orelse, cst.If):
            self.if_statement(node.orelse, else_ctx)
        elif isinstance(node.orelse, cst.Else):
            self.block(node.orelse.body, else_ctx)

    def _is_type_checking(self, test: cst.BaseExpression) -> bool:
        name = dotted_name(test)
        return name is not None and (name in self.type_checking_names
                                     or name.endswith(".TYPE_CHECKING"))

    def class_def(self, node: cst.ClassDef, ctx: _Ctx) -> None:
        for decorator in node.decorators:
            self.scan(decorator.decorator, ctx)
        for arg in (*node.bases, *node.keywords):
            self.scan(arg.value, ctx)
        qualname = ctx.qualname(node.name.value)
        fact = ClassFact(
            name=node.name.value,
            qualname=qualname,
            scope=ctx.scope,
            span=NO_SPAN,
            header=NO_SPAN,
            keyword_line=0,
            bases=tuple(self.expr(arg.value) for arg in node.bases),
            keywords=tuple((arg.keyword.value if arg.keyword else "**", self.expr(arg.value))
                           for arg in node.keywords),
            decorators=tuple(self.expr(d.decorator) for d in node.decorators),
            when=ctx.when,
        )
        self._at(fact, "span", node.name)
        self._at(fact, "keyword_line", node)
        self._at(fact, "header_end", node.name)
        self._at(fact, "header_start", node.decorators[0] if node.decorators else node)
        self.facts.classes.append(fact)
        self._note_local(node.name.value)
        body_ctx = _Ctx(scope=qualname, scope_is_function=False, when=ctx.when)
        self.block(node.body, body_ctx)

    def function_def(self, node: cst.FunctionDef, ctx: _Ctx) -> None:
        for decorator in node.decorators:
            self.scan(decorator.decorator, ctx)
        params = node.params
        all_params = [*params.posonly_params, *params.params, *params.kwonly_params]
        for param in all_params:
            self.scan(param.default, ctx)
        qualname = ctx.qualname(node.name.value)
        frame = _FunctionFrame()
        frame.locals.update(p.name.value for p in all_params)
        vararg = params.star_arg.name.value if isinstance(params.star_arg, cst.Param) else None
        kwarg = params.star_kwarg.name.value if params.star_kwarg is not None else None
        frame.locals.update(n for n in (vararg, kwarg) if n)
        fact = FunctionFact(
            name=node.name.value,
            qualname=qualname,
            scope=ctx.scope,
            span=NO_SPAN,
            header=NO_SPAN,
            decorators=tuple(self.expr(d.decorator) for d in node.decorators),
            params=tuple(p.name.value for p in all_params),
            vararg=vararg,
            kwarg=kwarg,
            is_async=node.asynchronous is not None,
            when=ctx.when,
        )
        self._at(fact, "span", node.name)
        self._at(fact, "header_end", node.name)
        self._at(fact, "header_start", node.decorators[0] if node.decorators else node)
        self.facts.functions.append(fact)
        self._note_local(node.name.value)
        getattr_param = None
        if not ctx.scope and node.name.value == "__getattr__" and all_params:
            getattr_param = all_params[0].name.value
        body_ctx = _Ctx(scope=qualname, scope_is_function=True, when="call",
                        getattr_param=getattr_param)
        self.frames.append(frame)
        try:
            self.block(node.body, body_ctx)
        finally:
            self.frames.pop()
        fact.local_names = tuple(sorted(frame.locals - frame.globals))
        fact.global_names = tuple(sorted(frame.globals))
        fact.returns = tuple(frame.returns)

    def small_statement(self, node: cst.BaseSmallStatement, ctx: _Ctx) -> None:  # noqa: C901
        if isinstance(node, cst.Import):
            self.import_statement(node, ctx)
            return
        if isinstance(node, cst.ImportFrom):
            self.import_from(node, ctx)
            return
        if isinstance(node, cst.Assign):
            for target in node.targets:
                self._assign_target(target.target, node.value, None, "assign", ctx)
        elif isinstance(node, cst.AnnAssign):
            self._assign_target(node.target, node.value, node.annotation.annotation,
                                "annassign", ctx)
        elif isinstance(node, cst.AugAssign):
            self._assign_target(node.target, node.value, None, "augassign", ctx,
                                _AUGMENTED_OPERATORS.get(type(node.operator)))
        elif isinstance(node, cst.Del):
            self._delete(node.target, ctx)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            if self.frames:
                self.frames[-1].globals.update(n.name.value for n in node.names)
        elif isinstance(node, cst.Return) and node.value is not None and self.frames:
            self.frames[-1].returns.append(self.expr(node.value))
        self.scan(node, ctx)

    def import_statement(self, node: cst.Import, ctx: _Ctx) -> None:
        names = []
        for alias in node.names:
            module = dotted_name(alias.name) or ""
            asname = _asname(alias)
            names.append((module, asname))
            if module == "typing" or module == "typing_extensions":
                self.type_checking_names.add(f"{asname or module}.TYPE_CHECKING")
            self._note_local(asname or module.split(".")[0])
        fact = ImportFact(module="", level=0, names=tuple(names), is_from=False, span=NO_SPAN,
                          scope=ctx.scope, when=ctx.when, guard=ctx.guard)
        self._at(fact, "span", node)
        self.facts.imports.append(fact)

    def import_from(self, node: cst.ImportFrom, ctx: _Ctx) -> None:
        module = dotted_name(node.module) if node.module is not None else ""
        if isinstance(node.names, cst.ImportStar):
            names: tuple[tuple[str, str | None], ...] = (("*", None),)
        else:
            names = tuple((dotted_name(a.name) or "", _asname(a)) for a in node.names)
        for name, asname in names:
            if module in ("typing", "typing_extensions") and name == "TYPE_CHECKING":
                self.type_checking_names.add(asname or name)
            if name != "*":
                self._note_local(asname or name)
        fact = ImportFact(module=module or "", level=len(node.relative), names=names,
                          is_from=True, span=NO_SPAN, scope=ctx.scope, when=ctx.when,
                          guard=ctx.guard)
        self._at(fact, "span", node)
        self.facts.imports.append(fact)

    def _assign_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None,
                       annotation: cst.BaseExpression | None, kind: str, ctx: _Ctx,
                       operator: str | None = None) -> None:
        if isinstance(target, cst.Name):
            if kind == "assign" and target.value == "TYPE_CHECKING":
                self.type_checking_names.add("TYPE_CHECKING")
            self._bind(target.value, target, kind, value, annotation, ctx, operator)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._assign_target(element.value, None, None, "unpack", ctx)
        elif isinstance(target, cst.StarredElement):
            self._assign_target(target.value, None, None, "unpack", ctx)
        elif isinstance(target, cst.Subscript):
            mutation = "augitem" if kind == "augassign" else "setitem"
            self._mutation(mutation, target, target.value, None, value, ctx, operator)
        elif isinstance(target, cst.Attribute):
            mutation = "augattr" if kind == "augassign" else "setattr"
            self._mutation(mutation, target, target.value, target.attr.value, value, ctx,
                           operator)

    def _bind_target(self, target: cst.BaseExpression, kind: str,
                     value: cst.BaseExpression | None, ctx: _Ctx) -> None:
        self._assign_target(target, value, None, kind, ctx)

    def _delete(self, target: cst.BaseExpression, ctx: _Ctx) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._delete(element.value, ctx)
        elif isinstance(target, cst.Subscript):
            self._mutation("delitem", target, target.value, None, None, ctx)
        elif isinstance(target, cst.Attribute):
            self._mutation("delattr", target, target.value, target.attr.value, None, ctx)

    def _bind(self, name: str, node: cst.CSTNode, kind: str,
              value: cst.BaseExpression | None, annotation: cst.BaseExpression | None,
              ctx: _Ctx, operator: str | None = None) -> None:
        fact = BindingFact(
            name=name,
            scope=ctx.scope,
            span=NO_SPAN,
            kind=kind,
            value=self.expr(value) if value is not None else None,
            annotation=self.expr(annotation) if annotation is not None else None,
            when=ctx.when,
            guard=ctx.guard,
            operator=operator,
        )
        self._at(fact, "span", node)
        self.facts.bindings.append(fact)
        self._note_local(name)

    def _mutation(self, kind: str, node: cst.CSTNode, target: cst.BaseExpression,
                  attr: str | None, value: cst.BaseExpression | None, ctx: _Ctx,
                  operator: str | None = None) -> None:
        fact = MutationFact(kind=kind, target=self.expr(target), attr=attr,
                            value=self.expr(value) if value is not None else None,
                            span=NO_SPAN, scope=ctx.scope, when=ctx.when, operator=operator)
        self._at(fact, "span", node)
        self.facts.mutations.append(fact)

    def _note_local(self, name: str) -> None:
        if self.frames:
            self.frames[-1].locals.add(name)


def _string_value(node: cst.SimpleString | cst.ConcatenatedString) -> str | bytes | None:
    """A string literal's value; the common plain literal without evaluating it."""
    if type(node) is cst.SimpleString:
        quote = node.quote
        body = node.value[len(node.prefix) + len(quote):-len(quote)]
        # Without a backslash or a carriage return (which the tokenizer normalises) and
        # outside bytes, a literal's value is its text between the quotes.
        if "\\" not in body and "\r" not in body and "b" not in node.prefix.lower():
            return body
    return node.evaluated_value


def _asname(alias: cst.ImportAlias) -> str | None:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return None


def _is_main_guard(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = {_plain(test.left), _plain(target.comparator)}
    return sides == {"name:__name__", "str:__main__"}


def _plain(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return f"name:{node.value}"
    if isinstance(node, cst.SimpleString):
        return f"str:{node.evaluated_value}"
    return ""


def _guard_name(test: cst.BaseExpression, param: str) -> str | None:
    """``name == "X"`` (either order) inside a module ``__getattr__(name)``."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return None
    sides = [_plain(test.left), _plain(target.comparator)]
    if f"name:{param}" not in sides:
        return None
    for side in sides:
        if side.startswith("str:"):
            return side[4:]
    return None


def extract(path: str, source: bytes, is_package: bool,
            after_parse: Callable[[], None] | None = None,
            admit: Admission | None = None) -> FileFacts:
    """Parse ``source`` with LibCST and return its facts (a parse error becomes ``error``).

    ``after_parse`` runs once each tree is built (the module's, or each piece's of a large
    module: ``lintkit.parsing.pieces``), before the facts are taken from it (the engine
    hands the parser's freed memory back to the system there). Each parse of ``n`` bytes
    (the module's, or a piece's) runs inside ``admit(n)``: the engine's workers wait there
    rather than parse two large pieces at once."""
    # LibCST evaluates string literals with ast.literal_eval, and the guard and a syntax
    # error's location use ast.parse: CPython warns about the file's invalid escapes ('\d'
    # in a regex), as SyntaxWarning from 3.12, which Python prints. Those are the file's
    # business, not a finding of lion-lint's, and with warnings made errors (-W error) a
    # literal's value would be lost.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        refused, tree = screen(source)
        if refused is not None:
            return FileFacts(path=path, is_package=is_package, line_count=line_count(source),
                             error=refused)
        cut = pieces(source, tree=tree) if len(source) >= PIECEWISE_MIN_BYTES else None
        del tree  # before LibCST parses: CPython's tree of a large module is tens of MB
        try:
            return _extract(path, source, is_package, cut, after_parse, admit)
        except RecursionError:
            pass  # a legal but deep tree (a long implicit string concatenation): more stack
        try:
            return with_deep_stack(_extract, path, source, is_package, cut, after_parse, admit)
        except RecursionError:
            return FileFacts(path=path, is_package=is_package, line_count=line_count(source),
                             error=ParseError(1, 1, "cannot analyse: nesting too deep"))


def _extract(path: str, source: bytes, is_package: bool,
             cut: list[tuple[int, str]] | None,
             after_parse: Callable[[], None] | None = None,
             admit: Admission | None = None) -> FileFacts:
    """The facts of ``source``, parsed in the pieces of ``cut`` (or whole: None)."""
    if cut is not None:
        facts = FileFacts(path=path, is_package=is_package, line_count=line_count(source))
        try:
            _take_facts(facts, ((line, _parsed(text, admit)) for line, text in cut),
                        after_parse)
        except cst.ParserSyntaxError:
            pass  # parsed whole below, which finds and words the error
        else:
            if b"lion-lint" in source:
                facts.suppressions = find_suppressions(source, "utf-8")
            return facts
    facts = FileFacts(path=path, is_package=is_package, line_count=line_count(source))
    try:
        module = _parsed(source, admit)
    except cst.ParserSyntaxError as error:
        facts.error = _interpreter_syntax_error(source, error)
        return facts
    except UnicodeDecodeError as error:
        facts.error = _undecodable(error)
        return facts
    except (LookupError, SyntaxError, ValueError) as error:
        facts.error = _undecodable_start(source, error)
        return facts
    _take_facts(facts, [(1, module)], after_parse)
    if b"lion-lint" in source:
        facts.suppressions = find_suppressions(source, module.encoding)
    return facts


def _parsed(source: bytes | str, admit: Admission | None) -> cst.Module:
    if admit is None:
        return parse_module(source)
    # The parser's native working memory is the peak (some 0.5 MB per KB of code, freed
    # once the tree is built), so admission covers the parse, not the walk that follows.
    with admit(len(source)):
        return parse_module(source)


def _take_facts(facts: FileFacts, trees: Iterable[tuple[int, cst.Module]],
                after_parse: Callable[[], None] | None) -> None:
    """Take the facts of a module's trees: the whole module's (from line 1), or those of its
    pieces in order, each parsed only when the one before is done with."""
    extractor = _Extractor(facts)
    context = _Ctx()
    for first_line, module in trees:
        if after_parse is not None:
            after_parse()
        extractor.block(module.body, context)
        extractor.resolve_positions(module, first_line)
        del module  # before the next piece is parsed: one tree at a time
    facts.lambdas = [marker.span for marker in extractor.lambdas]


def _interpreter_syntax_error(source: bytes, error: cst.ParserSyntaxError) -> ParseError:
    """CPython's own account of a syntax error LibCST found, when it has one.

    LibCST's parser locates some errors at the next token (a line late); the interpreter's
    compiler names the exact place and says it in words users know. It is asked only after
    LibCST has failed, and only to parse (never to run) the code. When the interpreter
    accepts the code, the fault is LibCST's (a construct it does not support) and the
    diagnostic says so rather than blame the file.
    """
    import ast

    reason = _first_line(error.message)
    try:
        ast.parse(source)
    except SyntaxError as syntax:
        if syntax.lineno:
            return ParseError(syntax.lineno, max(syntax.offset or 1, 1),
                              f"syntax error: {syntax.msg}")
    except (ValueError, RecursionError, MemoryError):
        pass
    else:
        line, column = _libcst_error_place(error)
        return ParseError(line, column, f"cannot parse: LibCST's parser rejects this code, "
                                        f"which the interpreter accepts ({reason})")
    line, column = _libcst_error_place(error)
    return ParseError(line, column, f"syntax error: {reason}")


_ERROR_AT = re.compile(r"error at (\d+):(\d+):")


def _libcst_error_place(error: cst.ParserSyntaxError) -> tuple[int, int]:
    """Where LibCST's native parser failed: 1-based line and column.

    Its message names the token it could not take ("error at 2:8", the column 0-based);
    `raw_line` and `raw_column` pair that token's column with a line that can be the next
    statement's, so a valid `(x): int` above a blank line was reported a line late.
    """
    match = _ERROR_AT.search(error.message)
    if match:
        return max(int(match[1]), 1), int(match[2]) + 1
    return max(error.raw_line, 1), error.raw_column + 1


def line_count(source: bytes) -> int:
    """Lines as the tokenizer counts them: CRLF, LF and a lone CR each end one."""
    return source.count(b"\n") + source.count(b"\r") - source.count(b"\r\n") + 1


def _undecodable(error: UnicodeDecodeError) -> ParseError:
    """Where the first undecodable byte is, in lines and characters, and what it is."""
    data, offset = error.object, error.start
    before = data[:offset]
    line_start = max(before.rfind(b"\n"), before.rfind(b"\r")) + 1
    column = len(before[line_start:].decode(error.encoding, "replace")) + 1
    byte = f"byte 0x{data[offset]:02x}" if offset < len(data) else "the end of the file"
    return ParseError(line_count(before), column,
                      f"cannot decode: {byte} is not valid {error.encoding} ({error.reason}); "
                      "declare the file's encoding (PEP 263) or save it as UTF-8")


def _undecodable_start(source: bytes, error: Exception) -> ParseError:
    """An encoding the file's first lines do not let anyone find: an unknown cookie, or
    (the tokenizer's "invalid or missing encoding declaration") a byte that is not UTF-8
    before any cookie, which is then located like any other undecodable byte."""
    if isinstance(error, SyntaxError):
        try:
            source.decode("utf-8-sig")  # a BOM is no column: its error counts from after it
        except UnicodeDecodeError as undecodable:
            return _undecodable(undecodable)
    return ParseError(1, 1, f"cannot decode: {_first_line(str(error))}")


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "invalid syntax"
