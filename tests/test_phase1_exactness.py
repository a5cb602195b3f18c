"""Phase 1's shortcuts change nothing: the facts equal those of the plain way.

Phase 1 parses with LibCST's per-node re-validation switched off (``cstparse``), finds
positions with a state whose per-token hook is a bare list append (``positions``), and its
walk for calls skips leaf nodes. Here the plain way is kept as the reference:
``cst.parse_module``, a code-generation state that tracks line and column on every token,
and a walk that visits every node. Both must give the same facts, byte for byte once
encoded, on real code (a slice of the standard library) and on text built to be awkward.
"""

from __future__ import annotations

import json
import sys
import sysconfig
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import libcst as cst
import pytest
from libcst._nodes.internal import CodegenState

from lintkit.core.facts import facts_to_data
from lintkit.parsing import extract as extract_module
from lintkit.parsing.extract import extract

Span = tuple[int, int, int, int]


class _ReferenceState(CodegenState):
    """Tracks the line and column through every token; records the wanted nodes."""

    def __init__(self, module: cst.Module, wanted: set[int], first_line: int) -> None:
        super().__init__(default_indent=module.default_indent,
                         default_newline=module.default_newline)
        self.line, self.column = first_line, 0
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
        if id(node) in self.wanted:
            self.starts[id(node)] = (self.line, self.column)

    def after_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        if key in self.wanted and key not in self.syntactic:
            line, column = self.starts[key]
            self.spans[key] = (line, column + 1, self.line, self.column + 1)

    @contextmanager
    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: object = None,
                                  end_node: object = None) -> Iterator[None]:
        key = id(node)
        if key not in self.wanted:
            yield
            return
        line, column = self.line, self.column
        yield
        self.syntactic.add(key)
        self.spans[key] = (line, column + 1, self.line, self.column + 1)


def reference_spans(module: cst.Module, wanted: set[int], first_line: int = 1) -> dict[int, Span]:
    state = _ReferenceState(module, wanted, first_line)
    module._codegen(state)
    return state.spans


AWKWARD = '''\
# -*- coding: utf-8 -*-
"""Docstring with ünïcödé and a tab:\tend."""
import os, sys as system  # comment
from . import (a,
    b as bee,  # trailing
)
if TYPE_CHECKING: from typing import Any
x = [1, 2,
     3]; y = {'k': (lambda q: q)(1)}  \\
    ; z = 1
café = "naïve 🐍" + 'x' * 3
\x0c
@decorator(
    arg=f"{value!r:>10}",
)
class  Spaced ( Base , metaclass = Meta ) :
    attr: int = field(default=(1))

    async def method(self, *args, key=lambda: None, **kw) -> "Ret":
        global counter
        (yield from other())
        return ((await thing()) if args else [i async for i in gen()])


def __getattr__(name):
    if name == "Lazy":
        from .lazy import Lazy
        return Lazy
    raise AttributeError(name)


if __name__ == "__main__":
    registry["key"] = value; del registry["key"]
    obj.attr += call(*rest, **options)
    (walrus := compute())
    s = r'raw\\n' """tri
ple""" "\\N{BULLET}" '\\r' U'u'
    data = b'\\x00' Rb"raw"
'''


def _stdlib_sample() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    names = ["ast.py", "dataclasses.py", "argparse.py", "typing.py", "enum.py",
             "json/__init__.py", "email/message.py", "asyncio/base_events.py",
             "importlib/_bootstrap.py", "tokenize.py", "unittest/mock.py"]
    return [root / name for name in names if (root / name).is_file()]


def _facts_json(path: str, source: bytes) -> str:
    return json.dumps(facts_to_data(extract(path, source, False)), sort_keys=True)


@pytest.mark.parametrize("sample", [*_stdlib_sample(), "awkward", "awkward-crlf"],
                         ids=lambda s: s if isinstance(s, str) else s.name)
def test_facts_equal_the_plain_parse_and_the_reference_positions(
        sample: Path | str, monkeypatch: pytest.MonkeyPatch) -> None:
    if sample == "awkward":
        source = AWKWARD.encode()
    elif sample == "awkward-crlf":
        source = AWKWARD.replace("\n", "\r\n").encode()
    else:
        source = Path(sample).read_bytes()
    fast = _facts_json("m.py", source)
    monkeypatch.setattr(extract_module, "parse_module", cst.parse_module)
    monkeypatch.setattr(extract_module, "node_spans", reference_spans)
    monkeypatch.setattr(extract_module, "_WALKED_TYPES",
                        extract_module._NODE_TYPES - extract_module._SKIPPED_TYPES)
    monkeypatch.setattr(extract_module, "PIECEWISE_MIN_BYTES", sys.maxsize)  # parsed whole
    plain = _facts_json("m.py", source)
    assert fast == plain
    assert '"error":null' in fast.replace(" ", "")  # the samples parse: spans were compared


def _all_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    yield node
    for child in node.children:
        yield from _all_nodes(child)


@pytest.mark.parametrize("which", ["expressions and statements", "every node"])
def test_node_spans_equal_the_reference_for_any_node_asked_about(
        which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The position pass reads only syntactic positions, which every expression and
    statement records; a node that records none (a comma, an argument, a parameter list)
    is answered by a second pass with the per-node hooks, and only then."""
    from lintkit.parsing import positions

    second_passes = []
    one_pass = positions.flat_codegen

    def counted(hooks: bool = True) -> object:
        second_passes.extend([hooks] if hooks else [])
        return one_pass(hooks)

    monkeypatch.setattr(positions, "flat_codegen", counted)
    module = cst.parse_module(AWKWARD)
    kinds = (cst.BaseExpression, cst.BaseSmallStatement, cst.BaseCompoundStatement)
    nodes = [n for n in _all_nodes(module)
             if which == "every node" and n is not module or isinstance(n, kinds)]
    wanted = {id(n) for n in nodes}
    assert positions.node_spans(module, wanted) == reference_spans(module, wanted)
    assert len(second_passes) == (1 if which == "every node" else 0)


def test_validation_is_back_after_the_fast_parse() -> None:
    """The shortcut is confined to the parse: nodes built by hand are still validated."""
    from lintkit.parsing.cstparse import parse_module

    parse_module(b"x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not an identifier")


def test_string_values_equal_libcsts_evaluation() -> None:
    """Plain literals are read without evaluation; the value must be what LibCST evaluates."""
    from lintkit.parsing.extract import _string_value

    class Strings(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.SimpleString] = []

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            self.found.append(node)

    sources = [AWKWARD, AWKWARD.replace("\n", "\r\n"), *(p.read_text("utf-8") for p in _stdlib_sample()[:4])]
    checked = 0
    for text in sources:
        visitor = Strings()
        cst.parse_module(text).visit(visitor)
        for node in visitor.found:
            assert _string_value(node) == node.evaluated_value, node.value
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("sample", [*_stdlib_sample()[:6], "awkward"],
                         ids=lambda s: s if isinstance(s, str) else s.name)
def test_facts_survive_the_json_codec_unchanged(sample: Path | str) -> None:
    """The cache and the workers ship facts as JSON: decoding gives back equal facts."""
    from lintkit.core.facts import facts_from_data

    source = AWKWARD.encode() if sample == "awkward" else Path(sample).read_bytes()
    facts = extract("m.py", source, False)
    assert facts_from_data(json.loads(json.dumps(facts_to_data(facts)))) == facts


# --- nested calls: one summary, shared -----------------------------------------------------

DEEP = "".join(f"f{i}(" for i in range(14)) + "x" + ")" * 14 + "\n"
NESTED = '''
value = outer(inner(1), key=other(deep(x)))
@decorate(make(name="a"))
def f():
    return wrap(g(h()))
'''


def _unshared_call_summary(self: extract_module._Extractor, node: cst.Call, depth: int):  # type: ignore[no-untyped-def]
    out = self._summarise(node, depth)
    self._at(out, "span", node)
    return out


@pytest.mark.parametrize("sample", [*_stdlib_sample()[:6], "deep", "nested"],
                         ids=lambda s: s if isinstance(s, str) else s.name)
def test_sharing_nested_call_summaries_changes_no_fact(
        sample: Path | str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call summarised on its own, as before sharing, gives equal facts."""
    source = {"deep": DEEP.encode(), "nested": NESTED.encode()}.get(sample)  # type: ignore[call-overload]
    source = source if source is not None else Path(sample).read_bytes()
    shared = extract("m.py", source, False)
    monkeypatch.setattr(extract_module._Extractor, "_call_summary", _unshared_call_summary)
    assert extract("m.py", source, False) == shared


def test_a_nested_call_is_its_own_callfacts_summary_in_memory_and_after_json() -> None:
    from lintkit.core.facts import facts_from_data

    facts = extract("m.py", NESTED.encode(), False)
    by_func = {c.func: c.call for c in facts.calls}
    assert by_func["outer"].items[0] is by_func["inner"]
    assert by_func["outer"].keyword("key") is by_func["other"]
    assert by_func["other"].items[0] is by_func["deep"]
    assert facts.bindings[0].value is by_func["outer"]
    assert facts.functions[0].decorators[0] is by_func["decorate"]
    data = json.loads(json.dumps(facts_to_data(facts)))
    index = {c.func: i for i, c in enumerate(facts.calls)}
    assert data["bindings"][0][4] == index["outer"]  # written once, referred to by index
    decoded = facts_from_data(data)
    assert decoded == facts
    again = {c.func: c.call for c in decoded.calls}
    # A decorator is built when the facts are read, and its call returns that very object.
    assert decoded.functions[0].decorators[0] is again["decorate"]
    # An assigned value stays text until read (see BindingFact): built at each read, equal
    # to the call's own summary, and so are the calls nested in it.
    assert decoded.bindings[0].value == again["outer"] == by_func["outer"]
    assert decoded.bindings[0].value is not decoded.bindings[0].value
    assert again["outer"].items[0] == again["inner"] == by_func["inner"]


LAZY = '''
log(first(1), *rest, key=second(x), **extra)
if check(a, b=1):
    go()
obj.attr.method(3)
factory(1)(2)
table[k](v)
'''


def test_a_read_back_call_builds_its_arguments_only_when_read() -> None:
    """Calls that no other fact holds keep their arguments as text once read back; the
    summary built from it equals the original at every read."""
    import copy
    import pickle

    from lintkit.core.facts import facts_from_data

    facts = extract("m.py", LAZY.encode(), False)
    decoded = facts_from_data(json.loads(json.dumps(facts_to_data(facts))))
    assert decoded == facts
    before = {c.func: c for c in facts.calls}
    calls = {c.func: c for c in decoded.calls}
    log = calls["log"]
    assert log.call == before["log"].call
    assert log.call is not log.call  # built anew at each read: nothing kept
    assert log.call.items[0] == calls["first"].call
    assert log.call.keyword("key") == calls["second"].call
    for original, read in zip(facts.calls, decoded.calls):
        built = original.call
        shape = (len(built.items), tuple(k for k, _ in built.keywords))
        assert (original.positional_count, original.keyword_names) == shape
        assert (read.positional_count, read.keyword_names) == shape
        assert (read.func, read.callee, read.span) == (original.func, built.func, built.span)
    assert (log.positional_count, log.keyword_names) == (2, ("key", "**"))
    assert (calls["go"].positional_count, calls["go"].keyword_names) == (0, ())
    # Written again, read-back facts give the very data they were read from.
    assert facts_to_data(decoded) == facts_to_data(facts)
    for twin in (copy.deepcopy(log), pickle.loads(pickle.dumps(log))):
        assert twin == log and twin.call == log.call


BOUND = '''
LIMIT = 3
TABLE = {"a": [1, 2], "b": make(size=LIMIT)}
def f(x):
    total = outer(inner(x), key=x.y)
    total += 1
    a, b = x
'''


def test_a_read_back_binding_builds_its_value_only_when_read() -> None:
    """A binding read back keeps its value as text; ``value`` builds it at every read,
    equal to the original, with the calls nested in it equal to their own summaries."""
    import copy
    import pickle

    from lintkit.core.facts import facts_from_data

    facts = extract("m.py", BOUND.encode(), False)
    data = json.loads(json.dumps(facts_to_data(facts)))
    decoded = facts_from_data(data)
    assert decoded == facts
    assert [b.value for b in decoded.bindings] == [b.value for b in facts.bindings]
    # value_kind reads the kind without building the value: from the text, or the index.
    kinds = [None if b.value is None else b.value.kind for b in facts.bindings]
    assert [b.value_kind for b in decoded.bindings] == [b.value_kind for b in facts.bindings]
    assert [b.value_kind for b in decoded.bindings] == kinds
    assert {"const", "dict", "call", None} <= set(kinds)
    bindings = {b.name: b for b in reversed(decoded.bindings)}  # a name's first binding
    assert bindings["a"].value is None and bindings["b"].value is None
    total = bindings["total"]
    assert total.kind == "assign"
    assert total.value is not total.value  # built anew at each read: nothing kept
    calls = {c.func: c.call for c in decoded.calls}
    assert total.value == calls["outer"]
    assert total.value.items[0] == calls["inner"]
    assert bindings["TABLE"].value.values[1] == calls["make"]
    assert bindings["LIMIT"].value.value == 3
    # Written again, read-back facts give the very data they were read from.
    assert facts_to_data(decoded) == data
    for twin in (copy.deepcopy(total), pickle.loads(pickle.dumps(total))):
        assert twin == total and twin.value == total.value
    assert "value=Expr(kind='call'" in repr(total) and "siblings" not in repr(total)


def test_a_read_back_value_that_holds_calls_needs_its_file() -> None:
    """Its nested calls are read from the file's calls: with those gone, reading the value
    says so rather than returning something else."""
    from lintkit.core.facts import facts_from_data

    decoded = facts_from_data(json.loads(json.dumps(facts_to_data(
        extract("m.py", BOUND.encode(), False)))))
    total = next(b for b in decoded.bindings if b.name == "total")
    limit = next(b for b in decoded.bindings if b.name == "LIMIT")
    del decoded
    with pytest.raises(ReferenceError, match="while the FileFacts it came from is alive"):
        total.value
    assert limit.value.value == 3  # holds no call: needs nothing else


def test_read_back_facts_hold_no_reference_cycles() -> None:
    """The engine runs with the cyclic collector paused: facts must go when dropped."""
    import gc
    import weakref

    from lintkit.core.facts import facts_from_data

    data = json.loads(json.dumps(facts_to_data(extract("m.py", LAZY.encode(), False))))
    decoded = facts_from_data(data)
    log = next(c for c in decoded.calls if c.func == "log")
    gone = weakref.ref(decoded.calls)
    built = log.call  # while its file's facts live, nested calls are built from them
    enabled = gc.isenabled()
    gc.disable()
    try:
        del decoded
        assert gone() is None, "the file's calls outlived their facts: a reference cycle"
    finally:
        if enabled:
            gc.enable()
    with pytest.raises(ReferenceError, match="while the FileFacts it came from is alive"):
        log.call  # noqa: B018  # its first argument is a call of that gone file
    assert built.items[0].func.ref == "first"


def test_a_call_another_fact_holds_is_built_once_when_read() -> None:
    from lintkit.core.facts import facts_from_data

    facts = extract("m.py", NESTED.encode(), False)
    decoded = facts_from_data(json.loads(json.dumps(facts_to_data(facts))))
    calls = {c.func: c for c in decoded.calls}
    assert calls["decorate"].call is calls["decorate"].call
    assert calls["decorate"].call is decoded.functions[0].decorators[0]
    # An assigned value is not held: it stays text, as the call it is does (see BindingFact).
    assert calls["outer"].call is not calls["outer"].call
    assert calls["outer"].call == decoded.bindings[0].value


def test_a_call_cut_short_by_the_depth_limit_keeps_its_own_full_summary() -> None:
    facts = extract("m.py", DEEP.encode(), False)
    calls = {c.func: c.call for c in facts.calls}

    def depth(e) -> int:  # type: ignore[no-untyped-def]
        return 1 + max((depth(i) for i in e.items), default=0)

    nested = calls["f0"]
    for _ in range(5):
        nested = nested.items[0]
    assert nested.func.ref == "f5" and nested is not calls["f5"]  # the copy inside f0 is cut
    assert depth(calls["f5"]) > depth(nested)
    assert calls["f12"].items[0].items[0].ref == "x"  # near the bottom: complete, and shared
    assert calls["f11"].items[0] is calls["f12"]


# --- spans: packed into one int in memory and in the cache ---------------------------------

@pytest.mark.parametrize("span", [
    (0, 0, 0, 0), (1, 0, 1, 1), (7, 16383, 7 + 16383, 16383),  # the widest that pack
    (300_000, 4, 300_001, 2),  # lines have no limit
    (3, 16384, 3, 16390), (3, 0, 3, 16384),  # a column too wide for its bits
    (1, 0, 16_385, 1),  # too many lines
    (5, 1, 4, 1), (1, -1, 1, 2),  # never made by phase 1, but kept as given
])
def test_a_span_reads_back_as_written(span: Span) -> None:
    from lintkit.core.facts import Expr, pack_span, unpack_span

    assert unpack_span(pack_span(span)) == span
    expr = Expr("ref", span, "x")
    assert expr.span == span
    expr.span = (2, 3, 4, 5)
    assert expr.span == (2, 3, 4, 5)


def test_an_expression_compares_and_prints_by_its_fields() -> None:
    from lintkit.core.facts import Expr

    call = Expr("call", (1, 0, 1, 3), items=(Expr("ref", (1, 2, 1, 3), "a"),),
                func=Expr("ref", (1, 0, 1, 1), "f"))
    same = Expr("call", (1, 0, 1, 3), items=(Expr("ref", (1, 2, 1, 3), "a"),),
                func=Expr("ref", (1, 0, 1, 1), "f"))
    assert call == same
    assert call != Expr("call", (1, 0, 1, 4), items=same.items, func=same.func)
    assert call.items[0] != Expr("ref", (1, 2, 1, 3), "b")
    assert "span=(1, 2, 1, 3)" in repr(call.items[0])
    assert repr(call).startswith("Expr(kind='call', span=(1, 0, 1, 3)")
    leaf = call.items[0]  # a name: no parts, read as the empty defaults
    assert (leaf.items, leaf.values, leaf.keywords, leaf.func) == ((), (), (), None)
    assert isinstance(call, Expr) and call.func == Expr("ref", (1, 0, 1, 1), "f")
    with pytest.raises(TypeError):
        hash(call)  # equal by value and mutable, as a dataclass would be


def test_an_expression_copies_and_pickles() -> None:
    """Rule authors may copy facts or ship them to their own processes."""
    import copy
    import pickle

    from lintkit.core.facts import Expr

    wide = Expr("ref", (3, 20_000, 3, 20_003), "abc")  # a span kept as a tuple
    call = Expr("call", (1, 0, 1, 9), items=(Expr("const", (1, 2, 1, 3), "int", 1), wide),
                keywords=(("k", Expr("ref", (1, 5, 1, 6), "v")),), func=Expr("ref", (1, 0, 1, 1), "f"))
    for expr in (call, wide, call.items[0]):
        for twin in (copy.copy(expr), copy.deepcopy(expr), pickle.loads(pickle.dumps(expr))):
            assert twin == expr and twin is not expr
            assert type(twin) is type(expr) and twin.span == expr.span


def test_wide_and_tall_expressions_keep_exact_spans_through_the_cache_codec() -> None:
    """Positions past what the packed form holds survive extraction and the JSON codec."""
    from lintkit.core.facts import facts_from_data

    padding = " " * 17_000
    tall = "\n".join(["tall = call(", *(["    1,"] * 16_400), ")"])
    source = f"wide = ({padding}f(x))\n{tall}\n({padding}g(x))\n".encode()
    facts = extract("m.py", source, False)
    calls = {c.func: c.call for c in facts.calls}
    f_at = len("wide = (") + len(padding) + 1  # columns count from 1
    assert calls["f"].span == (1, f_at, 1, f_at + len("f(x)"))
    assert calls["f"].items[0].span == (1, f_at + 2, 1, f_at + 3)
    assert calls["call"].span == (2, len("tall = ") + 1, 2 + 16_401, 2)
    assert calls["call"].items[-1].span == (2 + 16_400, 5, 2 + 16_400, 6)
    bindings = {b.name: b.span for b in facts.bindings}
    assert bindings == {"wide": (1, 1, 1, 5), "tall": (2, 1, 2, 5)}
    decoded = facts_from_data(json.loads(json.dumps(facts_to_data(facts))))
    assert decoded == facts
    assert {c.func: c.call.span for c in decoded.calls} == {
        "f": calls["f"].span, "call": calls["call"].span, "g": calls["g"].span}
    # Read without building the summary: the span, and the shape after it in the text.
    assert [(c.span, c.positional_count, c.keyword_names) for c in decoded.calls] == [
        (c.span, c.positional_count, c.keyword_names) for c in facts.calls]
    g_line, g_at = 2 + 16_402, 1 + len(padding) + 1  # read back from its stored text
    assert {c.func: c.call.func.span for c in decoded.calls}["g"] == (g_line, g_at,
                                                                      g_line, g_at + 1)
    assert {b.name: b.span for b in decoded.bindings} == bindings


def test_a_fact_reads_sets_and_prints_its_spans_as_tuples() -> None:
    """Facts keep spans packed; rules see tuples, wide or not."""
    import copy
    import pickle

    from lintkit.core.facts import BindingFact, FunctionFact

    wide = (70_000, 20_000, 70_000, 20_001)  # too wide to pack: kept as given
    binding = BindingFact("x", "", (3, 1, 3, 2), "assign", None, None, "import")
    assert binding.span == (3, 1, 3, 2) and type(binding.span) is tuple
    binding.span = wide
    assert binding.span == wide
    assert repr(binding).startswith("BindingFact(name='x', scope='', span=(70000, 20000,")
    function = FunctionFact("f", "f", "", (1, 5, 1, 6), (1, 1, 1, 9), (), (), None, None,
                            False, "import")
    assert (function.span, function.header) == ((1, 5, 1, 6), (1, 1, 1, 9))
    assert function != FunctionFact("f", "f", "", (1, 5, 1, 6), (1, 1, 2, 9), (), (), None,
                                    None, False, "import")
    for twin in (copy.deepcopy(function), pickle.loads(pickle.dumps(function))):
        assert twin == function and twin.header == (1, 1, 1, 9)
