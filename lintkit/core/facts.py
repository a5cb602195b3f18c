"""Per-file facts: what phase 1 learns about one module, as plain data.

Facts are produced once per file (from LibCST, in a worker process or from the cache) and
never hold CST nodes, so they can be cached as JSON and shipped between processes. Phase 2
builds the project index from them.

Conventions shared by every fact:

- ``span`` is ``(line, column, end_line, end_column)``, 1-based lines and columns.
- ``scope`` is the ``__qualname__`` of the enclosing class or function (``""`` at module
  level; ``f.<locals>.C`` inside a function), so ``scope.replace(".<locals>", "")`` is the
  lexical owner. Lambdas and comprehensions are transparent.
- ``when`` says when the code runs: ``"import"`` (executing the module runs it), ``"call"``
  (inside a function body), ``"typing"`` (the true branch of ``if TYPE_CHECKING:``) or
  ``"main"`` (inside ``if __name__ == "__main__":``).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from dataclasses import InitVar, dataclass, field, fields
from sys import intern
from typing import TYPE_CHECKING, Any, Literal, TypeVar

Span = tuple[int, int, int, int]
When = Literal["import", "call", "typing", "main"]
NO_SPAN: Span = (0, 0, 0, 0)
_T = TypeVar("_T")

#: A span packed into one int: ``line`` in the high bits, then ``column``, the line count
#: ``end_line - line`` and ``end_column`` in 14 bits each. A span with a field too wide for
#: its bits (a column past 16383, say) or a negative one stays a tuple.
PackedSpan = int | Span
_BITS = 14
_MASK = (1 << _BITS) - 1


def pack_span(span: Span | list[int]) -> PackedSpan:
    line, column, end_line, end_column = span
    lines = end_line - line
    if not (0 <= column <= _MASK and 0 <= end_column <= _MASK and 0 <= lines <= _MASK
            and line >= 0):
        return tuple(span)  # type: ignore[return-value]
    return (((line << _BITS | column) << _BITS | lines) << _BITS) | end_column


def unpack_span(packed: PackedSpan) -> Span:
    if packed.__class__ is tuple:
        return packed  # type: ignore[return-value]
    end_column = packed & _MASK  # type: ignore[operator]
    packed >>= _BITS  # type: ignore[operator]
    lines = packed & _MASK
    packed >>= _BITS
    line = packed >> _BITS
    return (line, packed & _MASK, line + lines, end_column)

# Bump when the shape of the facts changes: cached facts of another version are ignored.
FACTS_VERSION = 15


class Expr:
    """A shallow summary of an expression.

    kind is one of:
      ``ref``     a dotted name (``text``: ``a.b.c``; a call link renders as ``super().f``)
      ``const``   a literal (``text``: its type name; ``value``: the value where JSON holds it)
      ``tuple``/``list``/``set``  ``items``
      ``dict``    ``items`` are the keys and ``values`` the values, pairwise (``**x`` has key None)
      ``call``    ``func`` the callee, ``items`` the positional arguments (``*x`` is a
                  ``starred``), ``keywords`` the keyword arguments (``**x`` under ``"**"``)
      ``sub``     a subscript: ``func`` the subscripted value, ``items`` the slice elements
      ``attr``    an attribute of something other than a dotted name (``x[k].append``,
                  ``f(x).y``): ``text`` the attribute, ``func`` the object
      ``union``   ``a | b``: ``items`` the two operands (so ``X | None`` keeps ``X``)
      ``lambda``  ``func`` the body; ``text`` the parameter names, comma separated
      ``starred`` ``func`` the starred value
      ``other``   anything else (``text``: the node type)
    """

    # Not a dataclass, for memory: a project holds over a million of these (1.4 million on
    # the standard library). ``span`` is kept packed into one int (see pack_span) rather
    # than a tuple of four, which saves about 100 bytes each. And seven in ten are leaves
    # (a name or a constant): a leaf is an Expr of four slots whose parts are the class's
    # empty defaults, and only the others are _CompoundExpr, which gives the parts slots
    # (64 bytes against 96 for every leaf).
    __slots__ = ("kind", "_span", "text", "value")

    kind: str
    text: str
    value: Any
    items: tuple[Expr, ...] = ()
    values: tuple[Expr | None, ...] = ()
    keywords: tuple[tuple[str, Expr], ...] = ()
    func: Expr | None = None

    def __new__(cls, kind: str = "", span: Span | PackedSpan = NO_SPAN, text: str = "",
                value: Any = None, items: tuple[Expr, ...] = (),
                values: tuple[Expr | None, ...] = (),
                keywords: tuple[tuple[str, Expr], ...] = (), func: Expr | None = None) -> Expr:
        # copy and pickle call cls.__new__(cls) bare, then restore the slots: a compound
        # must come back compound.
        if cls is Expr and not (items or values or keywords or func is not None):
            return object.__new__(Expr)
        return object.__new__(_CompoundExpr)

    def __init__(self, kind: str, span: Span | PackedSpan = NO_SPAN, text: str = "",
                 value: Any = None, items: tuple[Expr, ...] = (),
                 values: tuple[Expr | None, ...] = (),
                 keywords: tuple[tuple[str, Expr], ...] = (), func: Expr | None = None) -> None:
        self.kind = kind
        self._span = span if span.__class__ is int else pack_span(span)  # type: ignore[arg-type]
        self.text = text
        self.value = value
        if self.__class__ is _CompoundExpr:
            self.items = items
            self.values = values
            self.keywords = keywords
            self.func = func

    @property
    def span(self) -> Span:
        return unpack_span(self._span)

    @span.setter
    def span(self, span: Span) -> None:
        self._span = pack_span(span)

    def _fields(self) -> tuple[Any, ...]:
        return (self.kind, self._span, self.text, self.value, self.items, self.values,
                self.keywords, self.func)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Expr):
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # equal by value, and mutable

    def __repr__(self) -> str:
        return (f"Expr(kind={self.kind!r}, span={self.span!r}, text={self.text!r}, "
                f"value={self.value!r}, items={self.items!r}, values={self.values!r}, "
                f"keywords={self.keywords!r}, func={self.func!r})")

    @property
    def ref(self) -> str | None:
        """The dotted name, if this is a plain reference."""
        return self.text if self.kind == "ref" else None

    @property
    def base_ref(self) -> str | None:
        """The dotted name, looking through one subscript (``Base[T]`` gives ``Base``)."""
        if self.kind == "sub" and self.func is not None:
            return self.func.ref
        return self.ref

    def keyword(self, name: str) -> Expr | None:
        for key, value in self.keywords:
            if key == name:
                return value
        return None

    def is_const(self, value: Any) -> bool:
        return self.kind == "const" and self.value is value


class _CompoundExpr(Expr):
    """An Expr with parts (items, values, keywords or a func): made by Expr(...) itself."""

    __slots__ = ("items", "values", "keywords", "func")  # type: ignore[misc]


class _Spanned:
    """A fact whose ``span`` (and ``header``, where it has one) is kept packed into one int
    (see pack_span) and reads as a tuple: over 200 000 facts on the standard library save
    some 100 bytes a span this way, as expressions do. The constructor takes a span as a
    tuple (or already packed); ``_spans_packed`` gives the class its ``span`` property
    once ``dataclass`` has made it (made earlier, the property would be taken for the
    constructor's default)."""

    __slots__ = ()

    _span: PackedSpan
    _header: PackedSpan

    if TYPE_CHECKING:  # what _spans_packed installs, for type checkers of rules
        @property
        def span(self) -> Span: ...

        @property
        def header(self) -> Span: ...

    def __post_init__(self, span: Span | PackedSpan,
                      header: Span | PackedSpan | None = None) -> None:
        # dataclass passes the InitVars: span, and header for the facts that have one.
        self._span = _packed(span)
        if header is not None:
            self._header = _packed(header)

    def __repr__(self) -> str:
        parts = []
        for item in fields(self):  # type: ignore[arg-type]
            if not item.compare:  # bookkeeping, not part of the fact
                continue
            name = item.name.lstrip("_")
            parts.append(f"{name}={getattr(self, name)!r}")
        return f"{type(self).__name__}({', '.join(parts)})"


def _get_span(fact: Any) -> Span:
    return unpack_span(fact._span)


def _set_span(fact: Any, span: Span) -> None:
    fact._span = pack_span(span)


def _get_header(fact: Any) -> Span:
    return unpack_span(fact._header)


def _set_header(fact: Any, header: Span) -> None:
    fact._header = pack_span(header)


def _spans_packed(cls: type[_T]) -> type[_T]:
    cls.span = property(_get_span, _set_span)  # type: ignore[attr-defined]
    if "_header" in cls.__slots__:  # type: ignore[attr-defined]
        cls.header = property(_get_header, _set_header)  # type: ignore[attr-defined]
    return cls


def _packed(span: Span | PackedSpan | list[int]) -> PackedSpan:
    return span if span.__class__ is int else pack_span(span)  # type: ignore[arg-type,return-value]


@_spans_packed
@dataclass(slots=True, repr=False)
class ImportFact(_Spanned):
    """An ``import`` or ``from ... import`` statement.

    ``names`` holds ``(name, asname)`` pairs: the imported names of a from-import (``("*",
    None)`` for a star import), or the dotted module of a plain import. ``module`` is written
    without its leading dots; ``level`` counts them. ``guard`` is the name tested by an
    enclosing ``if name == "X":`` inside a module ``__getattr__``.
    """

    module: str
    level: int
    names: tuple[tuple[str, str | None], ...]
    is_from: bool
    span: InitVar[Span | PackedSpan]
    _span: PackedSpan = field(init=False, repr=False)
    scope: str
    when: When
    guard: str | None = None


@_spans_packed
@dataclass(slots=True, repr=False, eq=False)
class BindingFact(_Spanned):
    """A name bound by an assignment, ``for``, ``with`` or walrus in some scope.

    ``value`` is the assigned expression for a single-target assignment or an augmented
    one (None for tuple unpacking and loops, where ``kind`` tells which); ``operator`` is an
    augmented assignment's operator (``"+="``, ``"|="``...), None for any other binding.

    Most bindings are a function's locals, which few rules read: a BindingFact read back
    from the cache keeps its value as the compact text it was stored as, and ``value``
    builds the summary from it each time it is read (an equal object each time, not the
    same one). Pick bindings by ``name``, ``scope``, ``kind`` and ``value_kind`` (always
    at hand) first, then read ``value`` once for the ones you keep.
    """

    name: str
    scope: str
    span: InitVar[Span | PackedSpan]
    _span: PackedSpan = field(init=False, repr=False)
    kind: str
    if TYPE_CHECKING:  # reads as the property made after dataclass (below)
        value: Expr | None
    else:
        value: InitVar[Expr | None]
    # An Expr or None; read back: JSON text of it, or the index of the CallFact it is.
    _value: Expr | str | int | None = field(init=False, repr=False)
    # Read back: the file's calls, where the indexes in ``_value`` point (see CallFact).
    _siblings: weakref.ref[list[CallFact]] | None = field(init=False, repr=False,
                                                         compare=False)
    annotation: Expr | None
    when: When
    guard: str | None = None
    operator: str | None = None

    def __post_init__(self, span: Span | PackedSpan,  # type: ignore[override]
                      value: Expr | None) -> None:
        self._span = _packed(span)
        self._value = value
        self._siblings = None

    @classmethod
    def stored(cls, name: str, scope: str, span: PackedSpan, kind: str,
               value: str | int | None, annotation: Expr | None, when: When,
               guard: str | None, siblings: weakref.ref[list[CallFact]],
               operator: str | None = None) -> BindingFact:
        """A binding as read back from its JSON: ``value`` as the encoder wrote it."""
        fact = object.__new__(cls)
        fact.name = name
        fact.scope = scope
        fact._span = span
        fact.kind = kind
        fact._value = value
        fact._siblings = siblings
        fact.annotation = annotation
        fact.when = when
        fact.guard = guard
        fact.operator = operator
        return fact

    @property
    def value_kind(self) -> str | None:
        """``value.kind`` (``"call"``, ``"ref"``, ``"dict"``...), or None for no value,
        without building ``value``."""
        value = self._value
        if value.__class__ is str:  # the encoding's first field: '["kind",...'
            return value[2:value.index('"', 2)]  # type: ignore[union-attr]
        if value.__class__ is int:
            return "call"  # the index of the CallFact it is
        return None if value is None else value.kind  # type: ignore[union-attr]

    def _fields(self) -> tuple[Any, ...]:
        return (self.name, self.scope, self._span, self.kind, self.value,  # type: ignore[attr-defined]
                self.annotation, self.when, self.guard, self.operator)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BindingFact):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy or a pickle is built: it needs no file to read its value against. The
        # fields are the constructor's arguments, in its order.
        return (BindingFact, self._fields())


def _get_value(fact: BindingFact) -> Expr | None:
    value = fact._value
    if value.__class__ is str:
        value = json.loads(value)  # type: ignore[arg-type]
    elif value.__class__ is not int:
        return value  # type: ignore[return-value]  # an Expr, or None
    return _SiblingDecoder(fact._siblings).decode(value)  # type: ignore[arg-type]


def _set_value(fact: BindingFact, value: Expr | None) -> None:
    fact._value = value


# Made after dataclass, as ``span`` is (see _Spanned): the property would be taken for the
# constructor's default.
BindingFact.value = property(_get_value, _set_value)  # type: ignore[assignment,method-assign]


@_spans_packed
@dataclass(slots=True, repr=False)
class MutationFact(_Spanned):
    """A store into something other than a plain name: ``x[k] = v``, ``del x[k]``,
    ``x[k] += v``, ``x.attr = v``, ``del x.attr``.

    ``target`` is the object written to (``x``); ``attr`` the attribute for attribute stores;
    ``operator`` an augmented store's operator (``"+="``, ``"|="``...), None for the others.
    """

    kind: str  # setitem | delitem | augitem | setattr | delattr | augattr
    target: Expr
    attr: str | None
    value: Expr | None
    span: InitVar[Span | PackedSpan]
    _span: PackedSpan = field(init=False, repr=False)
    scope: str
    when: When
    operator: str | None = None


class CallFact:
    """A call anywhere in the module. ``call`` is its expression summary (kind ``call``),
    ``callee`` that summary's ``func`` (the expression called) and ``func`` the callee's
    dotted name.

    A project holds hundreds of thousands of calls (326 000 on the standard library) and a
    rule wants a few of them, picked by what they call. So a CallFact read back from the
    cache keeps its callee's name, its span and its shape, and the rest as the compact text
    it was stored as; ``call`` (and ``callee``) build their summaries from that text each
    time they are read: an equal object each time, not the same one. Pick calls by
    ``func``, ``positional_count`` or ``keyword_names`` (always at hand), then read
    ``call`` for the ones you keep. A call that some other fact holds (a decorator, a
    stored value) is built once when the facts are read, and ``call`` returns that object.
    """

    # Not a dataclass: ``call``, ``func`` and ``span`` are read from the summary while it
    # is an Expr (phase 1 sets spans after making the fact) and from the slots once stored.
    # A stored fact reaches its file's list of calls, where the indexes of the calls nested
    # in its arguments point, through a weak reference: facts hold no reference cycles, so
    # they are freed as soon as they are dropped, with the cyclic collector paused. A stored
    # fact's span is the first field of its text, not a slot: an int object of its own
    # for each of 326 000 calls was 10 MB on the standard library.
    __slots__ = ("_body", "_func", "_siblings", "scope", "when", "guard")

    _body: Expr | str
    _func: str | None
    _siblings: weakref.ref[list[CallFact]] | None

    def __init__(self, call: Expr, scope: str, when: When, guard: str | None = None) -> None:
        self._body = call
        self._func = None
        self._siblings = None
        self.scope = scope
        self.when = when
        self.guard = guard

    @classmethod
    def stored(cls, func: str | None, text: str, siblings: weakref.ref[list[CallFact]],
               scope: str, when: When, guard: str | None = None) -> CallFact:
        """A call as read back from its JSON: ``text`` is what the encoder wrote (see the
        codec below), whose call indexes point into ``siblings``."""
        fact = object.__new__(cls)
        fact._body = text
        fact._func = func
        fact._siblings = siblings
        fact.scope = scope
        fact.when = when
        fact.guard = guard
        return fact

    @property
    def call(self) -> Expr:
        body = self._body
        if body.__class__ is not str:
            return body  # type: ignore[return-value]
        return _call_expr(body, self._func,  # type: ignore[arg-type]
                          _SiblingDecoder(self._siblings).decode)

    @property
    def callee(self) -> Expr | None:
        """The expression called (``call.func``); prefer ``func`` where a name will do. A
        name or dotted name called is built without reading the arguments."""
        body = self._body
        if body.__class__ is not str:
            return body.func  # type: ignore[union-attr]
        at = body.split(";", 4)[3]  # type: ignore[union-attr]
        if at:
            return Expr("ref", int(at), self._func)  # type: ignore[arg-type]
        return self.call.func

    @property
    def func(self) -> str | None:
        body = self._body
        if body.__class__ is str:
            return self._func
        callee = body.func  # type: ignore[union-attr]
        return callee.ref if callee is not None else None

    @property
    def positional_count(self) -> int:
        """How many positional arguments the call passes (``*x`` counts one), without
        building ``call``."""
        body = self._body
        if body.__class__ is not str:
            return len(body.items)  # type: ignore[union-attr]
        return int(body.split(";", 2)[1])  # type: ignore[union-attr]

    @property
    def keyword_names(self) -> tuple[str, ...]:
        """The names of the keyword arguments in order (``**x`` is ``"**"``), without
        building ``call``."""
        body = self._body
        if body.__class__ is not str:
            return tuple(k for k, _ in body.keywords)  # type: ignore[union-attr]
        names = body.split(";", 3)[2]  # type: ignore[union-attr]
        return tuple(names.split(",")) if names else ()

    @property
    def span(self) -> Span:
        body = self._body
        if body.__class__ is str:
            return unpack_span(_span_field(body[:body.index(";")]))  # type: ignore[union-attr]
        return body.span  # type: ignore[union-attr]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CallFact):
            return NotImplemented
        return (self.call, self.scope, self.when, self.guard) == (
            other.call, other.scope, other.when, other.guard)

    __hash__ = None  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy or a pickle is built: it needs no file to read its text against.
        return (CallFact, (self.call, self.scope, self.when, self.guard))

    def __repr__(self) -> str:
        return (f"CallFact(call={self.call!r}, scope={self.scope!r}, when={self.when!r}, "
                f"guard={self.guard!r})")


class _CallList(list):  # type: ignore[type-arg]
    """A file's calls as read back: a list that its stored calls can refer to weakly."""

    __slots__ = ("__weakref__",)


@_spans_packed
@dataclass(slots=True, repr=False)
class FunctionFact(_Spanned):
    name: str
    qualname: str
    scope: str
    span: InitVar[Span | PackedSpan]  # the name
    _span: PackedSpan = field(init=False, repr=False)
    #: From the first decorator (or ``def``) to the end of the ``def`` line.
    header: InitVar[Span | PackedSpan]
    _header: PackedSpan = field(init=False, repr=False)
    decorators: tuple[Expr, ...]
    params: tuple[str, ...]
    vararg: str | None
    kwarg: str | None
    is_async: bool
    when: When
    local_names: tuple[str, ...] = ()
    global_names: tuple[str, ...] = ()
    returns: tuple[Expr, ...] = ()


@_spans_packed
@dataclass(slots=True, repr=False)
class ClassFact(_Spanned):
    name: str
    qualname: str
    scope: str
    span: InitVar[Span | PackedSpan]  # the name
    _span: PackedSpan = field(init=False, repr=False)
    #: From the first decorator (or ``class``) to the ``class`` line.
    header: InitVar[Span | PackedSpan]
    _header: PackedSpan = field(init=False, repr=False)
    keyword_line: int  # the line of the ``class`` keyword
    bases: tuple[Expr, ...]
    keywords: tuple[tuple[str, Expr], ...]
    decorators: tuple[Expr, ...]
    when: When


@dataclass(slots=True)
class SuppressionFact:
    """A ``# lion-lint: ignore[CODE, ...] -- reason`` comment."""

    line: int
    column: int
    end_column: int
    codes: tuple[str, ...]
    reason: str
    own_line: bool


@dataclass(slots=True)
class ParseError:
    line: int
    column: int
    message: str


@dataclass(slots=True)
class FileFacts:
    path: str
    is_package: bool
    imports: list[ImportFact] = field(default_factory=list)
    bindings: list[BindingFact] = field(default_factory=list)
    mutations: list[MutationFact] = field(default_factory=list)
    calls: list[CallFact] = field(default_factory=list)
    functions: list[FunctionFact] = field(default_factory=list)
    classes: list[ClassFact] = field(default_factory=list)
    suppressions: list[SuppressionFact] = field(default_factory=list)
    #: The span of every lambda: code inside one runs when it is called, not where it stands.
    lambdas: list[Span] = field(default_factory=list)
    error: ParseError | None = None
    line_count: int = 0


# --- JSON codec -----------------------------------------------------------------------------
# Facts encode as positional lists (compact, and cheap to decode on a warm run).
#
# An Expr is a list of its fields in order, without the trailing ones left at their defaults
# (most expressions are a bare name or constant: no items, values, keywords or func). A call
# nested in another expression is usually the very object of its own CallFact (phase 1
# shares it): it is written once, there, and elsewhere as that CallFact's index, so decoding
# shares it again. A quarter of all summaries are such nested calls.
#
# A CallFact is written as [func, text, scope, when, guard]: ``func`` is the callee's
# dotted name when the callee is a plain name (nearly always) and null otherwise, and
# ``text`` is five fields joined by ";": the call's packed span (or its four numbers
# joined by "," where it does not pack), the count of positional arguments, the keyword
# names joined by ",", the callee's packed span when the name and it make the callee (else
# empty), and JSON of a list of items, keywords, values, text and value (in that order,
# the likeliest first) without trailing defaults, preceded by the callee when the span
# field is empty.
# Only the JSON can hold a ";", and it comes last.
#
# A BindingFact is written as its fields in order, with its value as the JSON text of the
# value's encoding, or as the index of the CallFact the value is: read back, it stays so
# until a rule reads it.
_EXPR_DEFAULTS: tuple[Any, ...] = ("", None, [], [], [], None)
_ARGUMENT_DEFAULTS: tuple[Any, ...] = ([], [], [], "", None)
_dumps = json.JSONEncoder(separators=(",", ":")).encode

Encoded = list[Any] | int


class _ExprEncoder:
    """Writes a file's expressions; a call that is some CallFact's is written as its index.

    A class rather than closures: a closure that calls itself is a reference cycle, and the
    engine runs with the cyclic collector paused."""

    __slots__ = ("shared",)

    def __init__(self, calls: list[CallFact]) -> None:
        # Only built summaries: a stored call's ``call`` is a new object at every read.
        self.shared = {id(c._body): i for i, c in enumerate(calls)
                       if c._body.__class__ is not str}

    def encode(self, e: Expr) -> Encoded:
        index = self.shared.get(id(e)) if e.kind == "call" else None
        return self.body(e) if index is None else index

    def body(self, e: Expr) -> list[Any]:
        """The expression in full, whether shared or not."""
        encode = self.encode
        data = [
            e.kind,
            e._span,  # packed: one JSON number (a list where it would not pack)
            e.text,
            e.value,
            list(map(encode, e.items)) if e.items else [],
            [None if v is None else encode(v) for v in e.values] if e.values else [],
            [[k, encode(v)] for k, v in e.keywords] if e.keywords else [],
            None if e.func is None else encode(e.func),
        ]
        end = len(data)
        while end > 2 and data[end - 1] == _EXPR_DEFAULTS[end - 3]:
            end -= 1
        del data[end:]
        return data

    def row(self, fact: CallFact) -> list[Any]:
        """A CallFact as written: func, text, scope, when, guard (see above)."""
        if fact._body.__class__ is str:  # read back and never built: as it was read
            return [fact._func, fact._body, fact.scope, fact.when, fact.guard]
        call: Expr = fact._body  # type: ignore[assignment]
        encode = self.encode
        arguments = [
            list(map(encode, call.items)) if call.items else [],
            [[k, encode(v)] for k, v in call.keywords] if call.keywords else [],
            [None if v is None else encode(v) for v in call.values] if call.values else [],
            call.text,
            call.value,
        ]
        end = len(arguments)
        while end and arguments[end - 1] == _ARGUMENT_DEFAULTS[end - 1]:
            end -= 1
        del arguments[end:]
        callee = call.func
        func = callee.ref if callee is not None else None
        if (func is not None and callee.__class__ is Expr and callee.value is None
                and callee._span.__class__ is int):
            at = str(callee._span)  # the callee is rebuilt from its name and this alone
        else:
            at = ""
            arguments.insert(0, None if callee is None else encode(callee))
        names = ",".join(k for k, _ in call.keywords)
        data = _dumps(arguments) if arguments else ""
        span = call._span
        head = str(span) if span.__class__ is int else ",".join(map(str, span))  # type: ignore[arg-type]
        return [func, f"{head};{len(call.items)};{names};{at};{data}", fact.scope, fact.when,
                fact.guard]

    def binding_row(self, fact: BindingFact) -> list[Any]:
        """A BindingFact as written: its fields in order, the value as JSON text of its
        encoding (or the index of the CallFact it is), read only when a rule asks; the
        operator only when there is one (an augmented assignment's)."""
        value = fact._value
        if value is not None and value.__class__ is not str and value.__class__ is not int:
            encoded = self.encode(value)  # type: ignore[arg-type]
            value = encoded if encoded.__class__ is int else _dumps(encoded)
        annotation = fact.annotation
        row = [fact.name, fact.scope, fact._span, fact.kind, value,
               None if annotation is None else self.encode(annotation), fact.when,
               fact.guard]
        if fact.operator is not None:
            row.append(fact.operator)
        return row


class _ExprDecoder:
    """Reads a file's expressions; an index reads (once) the summary of that CallFact."""

    __slots__ = ("raw_calls", "shared")

    def __init__(self, raw_calls: list[list[Any]]) -> None:
        self.raw_calls = raw_calls
        self.shared: dict[int, Expr] = {}

    def decode(self, d: Encoded) -> Expr:
        # The hot loop of a warm run (hundreds of thousands of calls): no generator
        # expressions. Kinds, names and scopes repeat thousands of times: interned, each is
        # held once.
        if d.__class__ is int:
            return self.shared_call(d)  # type: ignore[arg-type]
        size = len(d)  # type: ignore[arg-type]
        if size < 3:
            return Expr(intern(d[0]), d[1])  # type: ignore[index]
        decode = self.decode
        items = d[4] if size > 4 else None  # type: ignore[index]
        values = d[5] if size > 5 else None  # type: ignore[index]
        keywords = d[6] if size > 6 else None  # type: ignore[index]
        func = d[7] if size > 7 else None  # type: ignore[index]
        return Expr(
            intern(d[0]),  # type: ignore[index]
            d[1],  # type: ignore[index]
            intern(d[2]),  # type: ignore[index]
            d[3] if size > 3 else None,  # type: ignore[index]
            tuple(map(decode, items)) if items else (),
            tuple([None if v is None else decode(v) for v in values]) if values else (),
            tuple([(k, decode(v)) for k, v in keywords]) if keywords else (),
            None if func is None else decode(func),
        )

    def shared_call(self, index: int) -> Expr:
        """The summary of the file's call ``index``, built once for every fact that holds it."""
        known = self.shared.get(index)
        if known is None:
            row = self.raw_calls[index]
            known = self.shared[index] = _call_expr(row[1], row[0], self.decode)
        return known


class _SiblingDecoder(_ExprDecoder):
    """Reads a stored CallFact's arguments: an index is that sibling CallFact's ``call``."""

    __slots__ = ("siblings",)

    def __init__(self, siblings: weakref.ref[list[CallFact]] | None) -> None:
        self.siblings = siblings

    def shared_call(self, index: int) -> Expr:
        calls = self.siblings() if self.siblings is not None else None
        if calls is None:
            raise ReferenceError(
                "this fact was read back from the cache and its expression holds calls, "
                "which are built from its file's facts; those are gone: read it while "
                "the FileFacts it came from is alive")
        return calls[index].call  # type: ignore[no-any-return]


def _span_field(field: str) -> PackedSpan:
    """The span written as the first field of a stored call's text."""
    if "," in field:
        return tuple(map(int, field.split(",")))  # type: ignore[return-value]
    return int(field)


def _call_expr(text: str, func: str | None, decode: Decode) -> Expr:
    """A call's summary from its stored text and its callee's name."""
    head, _, _, at, rest = text.split(";", 4)
    span = _span_field(head)
    data = json.loads(rest) if rest else []
    if at:
        callee: Expr | None = Expr("ref", int(at), func)  # type: ignore[arg-type]
    else:
        first = data.pop(0)
        callee = None if first is None else decode(first)
    size = len(data)
    items = data[0] if size else None
    keywords = data[1] if size > 1 else None
    values = data[2] if size > 2 else None
    return Expr(
        "call",
        span,
        intern(data[3]) if size > 3 else "",
        data[4] if size > 4 else None,
        tuple(map(decode, items)) if items else (),
        tuple([None if v is None else decode(v) for v in values]) if values else (),
        tuple([(k, decode(v)) for k, v in keywords]) if keywords else (),
        callee,
    )


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _encode(value: Any, expr: Callable[[Expr], Encoded]) -> Any:
    if isinstance(value, Expr):
        return expr(value)
    if isinstance(value, tuple):
        return [_encode(v, expr) for v in value]
    names = _FIELD_NAMES.get(type(value))
    if names is None and hasattr(value, "__dataclass_fields__"):
        names = _FIELD_NAMES[type(value)] = tuple(f.name for f in fields(value))
    if names is not None:
        return [_encode(getattr(value, name), expr) for name in names]
    if isinstance(value, list):
        return [_encode(v, expr) for v in value]
    return value


# One decoder per fact class, field by field in declaration order (the encoder writes
# ``fields()`` in that order). Written out rather than table-driven: a warm run decodes
# some 80 000 facts on LionAGI, and a generic per-field dispatch cost a third of that.

Decode = Callable[[Encoded], Expr]


def _opt_expr(raw: Encoded | None, expr: Decode) -> Expr | None:
    return None if raw is None else expr(raw)


def _opt_intern(raw: str | None) -> str | None:
    return None if raw is None else intern(raw)


def _exprs(raw: list[Any], expr: Decode) -> tuple[Expr, ...]:
    return tuple(map(expr, raw))


def _import_fact(r: list[Any], expr: Decode) -> ImportFact:
    return ImportFact(intern(r[0]), r[1], tuple([(a, b) for a, b in r[2]]), r[3], r[4],
                      intern(r[5]), intern(r[6]), _opt_intern(r[7]))  # type: ignore[arg-type]


def _mutation_fact(r: list[Any], expr: Decode) -> MutationFact:
    return MutationFact(intern(r[0]), expr(r[1]), _opt_intern(r[2]), _opt_expr(r[3], expr),
                        r[4], intern(r[5]), intern(r[6]), _opt_intern(r[7]))  # type: ignore[arg-type]


def _function_fact(r: list[Any], expr: Decode) -> FunctionFact:
    return FunctionFact(intern(r[0]), intern(r[1]), intern(r[2]), r[3], r[4],  # type: ignore[arg-type]
                        _exprs(r[5], expr), tuple(map(intern, r[6])), _opt_intern(r[7]),
                        _opt_intern(r[8]), r[9], intern(r[10]), tuple(map(intern, r[11])),
                        tuple(map(intern, r[12])),  # type: ignore[arg-type]
                        _exprs(r[13], expr))


def _class_fact(r: list[Any], expr: Decode) -> ClassFact:
    return ClassFact(intern(r[0]), intern(r[1]), intern(r[2]), r[3], r[4], r[5],  # type: ignore[arg-type]
                     _exprs(r[6], expr), tuple([(k, expr(v)) for k, v in r[7]]),
                     _exprs(r[8], expr), intern(r[9]))  # type: ignore[arg-type]


def _suppression_fact(r: list[Any], expr: Decode) -> SuppressionFact:
    return SuppressionFact(r[0], r[1], r[2], tuple(r[3]), r[4], r[5])


# Every list but ``calls``, which is written and read first (the others refer into it),
# and ``bindings``, whose values are kept as text (see BindingFact).
_LISTS: tuple[tuple[str, Callable[[list[Any], Decode], Any]], ...] = (
    ("imports", _import_fact),
    ("mutations", _mutation_fact),
    ("functions", _function_fact),
    ("classes", _class_fact),
    ("suppressions", _suppression_fact),
)


def facts_to_data(facts: FileFacts) -> dict[str, Any]:
    encoder = _ExprEncoder(facts.calls)
    encode = encoder.encode
    data: dict[str, Any] = {"path": facts.path, "is_package": facts.is_package,
                            "line_count": facts.line_count}
    data["calls"] = [encoder.row(c) for c in facts.calls]
    data["bindings"] = [encoder.binding_row(b) for b in facts.bindings]
    for name, _ in _LISTS:
        data[name] = [_encode(item, encode) for item in getattr(facts, name)]
    data["lambdas"] = [list(span) for span in facts.lambdas]
    data["error"] = _encode(facts.error, encode) if facts.error else None
    return data


def facts_from_data(data: dict[str, Any]) -> FileFacts:
    facts = FileFacts(path=data["path"], is_package=data["is_package"],
                      line_count=data.get("line_count", 0))
    raw_calls = data["calls"]
    decoder = _ExprDecoder(raw_calls)
    expr = decoder.decode
    calls = facts.calls = _CallList()
    siblings = weakref.ref(calls)
    stored = CallFact.stored
    for r in raw_calls:
        calls.append(stored(_opt_intern(r[0]), r[1], siblings, intern(r[2]), intern(r[3]),
                            _opt_intern(r[4])))
    binding = BindingFact.stored
    facts.bindings = [binding(intern(r[0]), intern(r[1]), _packed(r[2]), intern(r[3]), r[4],
                              _opt_expr(r[5], expr), intern(r[6]), _opt_intern(r[7]),
                              siblings, _opt_intern(r[8]) if len(r) > 8 else None)
                      for r in data["bindings"]]
    for name, decode in _LISTS:
        setattr(facts, name, [decode(r, expr) for r in data[name]])
    # Calls that other facts hold (a decorator, a stored value) were built for them:
    # their CallFacts return those very objects.
    for i, call in decoder.shared.items():
        calls[i]._body = call
    facts.lambdas = [tuple(span) for span in data["lambdas"]]  # type: ignore[misc]
    if data.get("error"):
        facts.error = ParseError(*data["error"])
    return facts
