"""Generated Python projects, for tests/test_fuzz.py and ``benchmarks/sweep.py --fuzz``.

``projects()`` builds small packages whose modules are made of the constructs lion-lint's
phase 1 and rules look at (classes with bases and decorators, dataclasses, imports of every
form, module ``__getattr__``, registrations, sentinel flags, TYPE_CHECKING blocks, nested
functions, comprehensions, odd literals, waiver comments), imported across modules in every
direction so that the project index and the cross-module rules have chains to follow. The
rules are configured to look at this package. ``check_project`` is the property: the real
engine runs with every rule on, nothing raises, each diagnostic points inside its file, and
a file is reported as unparsable (LL000) exactly when the interpreter cannot parse it.
"""

from __future__ import annotations

import ast
import functools
import warnings
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from lintkit.cli.compose import shipped_rules
from lintkit.core.diagnostics import Diagnostic
from lintkit.testing import lint_sources

# --- names and expressions --------------------------------------------------------------------

NAMES = st.sampled_from([
    "a", "b", "x", "value", "registry", "REGISTRY", "handlers", "Base", "Params", "Model",
    "ModelConfig", "T", "cls", "self", "name", "_private", "__all__", "TYPE_CHECKING",
    "dataclass", "field", "ñame", "Ünïcode", "match", "case", "type", "_", "__getattr__",
])
DOTTED = st.one_of(NAMES, st.sampled_from([
    "dataclasses.dataclass", "pkg.base.Params", "base.Params", "atexit.register",
    "registry.register", "REGISTRY.update", "REGISTRY.setdefault", "handlers.append",
    "self.value", "super().__init__", "typing.TYPE_CHECKING", "_compat_is_sentinel",
    "is_sentinel", "importlib.import_module", "functools.partial", "app.route", "mcp.tool",
    "sys.modules", "os.path.join", "collections.defaultdict",
]))
LITERALS = st.one_of(
    st.integers(-10**30, 10**30).map(repr),
    st.floats(allow_nan=False).map(repr),
    st.sampled_from(["0x_ff", "0o17", "0b1010_1010", "1_000_000", "1e-3_0", "3.14j", "...",
                     "None", "True", "False", "NotImplemented", "r'\\d+'", "b'\\x00\\xff'",
                     "'''multi\nline'''", '"tab\\there"', "'é€𝔘'", "u'old'", "rb'raw'",
                     "'implicit' 'concatenation'", "f'{x!r:>{width}}'", "f'{{braces}}'"]),
    st.text(max_size=12).map(repr),
)
KEYWORDS = st.sampled_from(["eq", "frozen", "none_as_sentinel", "empty_as_sentinel", "site",
                            "metaclass", "key", "default", "slots", "order"])
OPERATORS = st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "@", "|", "&", "^", "<<",
                             ">>", "and", "or", "==", "!=", "<", "<=", "is", "is not", "in",
                             "not in"])


def _call(function: str, args: list[str], keywords: list[tuple[str, str]],
          star: str | None) -> str:
    parts = [*args, *(f"{k}={v}" for k, v in keywords)]
    if star:
        parts.append(star)
    return f"{function}({', '.join(parts)})"


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(_call, DOTTED, st.lists(inner, max_size=3),
                  st.lists(st.tuples(KEYWORDS, inner), max_size=2),
                  st.one_of(st.none(), inner.map(lambda e: f"*{e}"),
                            inner.map(lambda e: f"**{e}"))),
        st.builds(lambda a, op, b: f"({a} {op} {b})", inner, OPERATORS, inner),
        st.builds(lambda e: f"(not {e})", inner),
        st.builds(lambda e: f"(-{e})", inner),
        st.builds(lambda v, s: f"{v}[{s}]", inner, inner),
        st.builds(lambda v, a, b: f"{v}[{a}:{b}]", inner, inner, inner),
        st.builds(lambda v, n: f"({v}).{n}", inner, NAMES),
        st.lists(inner, max_size=4).map(lambda items: f"[{', '.join(items)}]"),
        st.lists(inner, max_size=4).map(lambda items: f"({', '.join(items)},)" if items else "()"),
        st.lists(inner, min_size=1, max_size=4).map(lambda items: f"{{{', '.join(items)}}}"),
        st.lists(st.tuples(inner, inner), max_size=3).map(
            lambda pairs: "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"),
        st.builds(lambda k, e: f"{{**{e}, 'k': {k}}}", inner, inner),
        st.builds(lambda e, n, s: f"[{e} for {n} in {s} if {n}]", inner, NAMES, inner),
        st.builds(lambda e, n, s: f"{{{n}: {e} for {n} in {s}}}", inner, NAMES, inner),
        st.builds(lambda e, n, s: f"({e} for {n} in {s})", inner, NAMES, inner),
        st.builds(lambda n, e: f"(lambda {n}, *rest, **kw: {e})", NAMES, inner),
        st.builds(lambda a, t, b: f"({a} if {t} else {b})", inner, inner, inner),
        st.builds(lambda n, e: f"({n} := {e})", NAMES, inner),
        # Before 3.12 an f-string's fields may not reuse its quote or hold a backslash.
        st.builds(lambda n, m: f'f"{{{n}!r}} and {{{m}:>{{10}}}} {{{{braces}}}}"', DOTTED,
                  DOTTED),
    )


# Deferred: the strategy's repr stays one line instead of the whole expanded tree.
_EXPRESSIONS = st.recursive(st.one_of(DOTTED, LITERALS), _extend, max_leaves=8)
EXPRESSIONS = st.deferred(lambda: _EXPRESSIONS)

# --- statements -------------------------------------------------------------------------------

IMPORTS = st.sampled_from([
    "import atexit", "import dataclasses", "import typing", "import pkg.b",
    "import pkg.sub.c as c", "from pkg import a", "from pkg.base import Params",
    "from . import b", "from .base import Params as P", "from .. import a",
    "from .sub import c", "from .sub.c import *", "from pkg._sentinel import ModelConfig",
    "from pkg._sentinel import _compat_is_sentinel, is_sentinel", "from dataclasses import "
    "dataclass, field", "from typing import TYPE_CHECKING", "from ... import nowhere",
    "import importlib", "from __future__ import annotations", "from pkg import *",
])
WAIVERS = st.sampled_from([
    "", "", "", "  # a comment", "  # lion-lint: ignore[LL001] -- reviewed",
    "  # lion-lint: ignore[LL003]", "  # lion-lint: ignore -- no codes",
    "  # lion-lint: ignore[LL002, LL999] -- two", "  # type: ignore",
])


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line if line else line for line in lines]


def _simple() -> st.SearchStrategy[str]:
    single = st.one_of(NAMES, st.builds(lambda n, a: f"{n}.{a}", NAMES, NAMES),
                       st.builds(lambda n, k: f"{n}[{k}]", NAMES, EXPRESSIONS))
    target = st.one_of(single, st.builds(lambda a, b: f"{a}, *{b}", NAMES, NAMES),
                       st.builds(lambda a, b: f"[{a}, ({b}, _)]", single, NAMES))
    return st.one_of(
        IMPORTS,
        st.builds(lambda t, e: f"{t} = {e}", target, EXPRESSIONS),
        st.builds(lambda a, b, e: f"{a} = {b} = {e}", single, target, EXPRESSIONS),
        st.builds(lambda t, a, e: f"{t}: {a} = {e}", single, DOTTED, EXPRESSIONS),
        st.builds(lambda t, a: f"{t}: {a}", NAMES, DOTTED),
        st.builds(lambda t, e: f"{t} += {e}", single, EXPRESSIONS),
        st.builds(lambda n, k: f"del {n}[{k}], {n}.attr", NAMES, EXPRESSIONS),
        EXPRESSIONS,
        st.builds(lambda e: f"return {e}", EXPRESSIONS),
        st.builds(lambda e: f"yield {e}", EXPRESSIONS),
        st.builds(lambda n: f"global {n}", NAMES),
        st.builds(lambda n: f"nonlocal {n}", NAMES),
        st.builds(lambda a, b: f"raise {a} from {b}", DOTTED, DOTTED),
        st.builds(lambda a, b: f"assert {a}, {b}", EXPRESSIONS, EXPRESSIONS),
        st.sampled_from(["pass", "break", "continue", "__all__ = ['a', 'Params']",
                         "REGISTRY['k'] = Params", "setattr(sys.modules[__name__], 'x', 1)"]),
    )


SIMPLE = _simple()


@functools.cache  # one strategy per depth, shared: hypothesis builds each once
def _statements(depth: int) -> st.SearchStrategy[list[str]]:
    simple = st.builds(lambda s, w: [s + w], SIMPLE, WAIVERS)
    if depth == 0:
        return simple
    body = st.lists(st.deferred(lambda: _statements(depth - 1)), min_size=1, max_size=3).map(
        lambda blocks: [line for block in blocks for line in block])
    decorators = st.lists(st.one_of(DOTTED, st.builds(_call, DOTTED, st.lists(
        EXPRESSIONS, max_size=2), st.lists(st.tuples(KEYWORDS, EXPRESSIONS), max_size=2),
        st.none())), max_size=2).map(lambda ds: [f"@{d}" for d in ds])
    params = st.sampled_from(["", "self", "self, value=None", "cls, /, a, *args, b=1, **kw",
                              "name", "*, site='pkg.a.f'", "x: int = 0, *ys: str"])
    bases = st.builds(lambda positional, keywords: positional + keywords,
                      st.lists(DOTTED, max_size=2),
                      st.lists(st.builds(lambda k, v: f"{k}={v}", KEYWORDS, EXPRESSIONS),
                               max_size=2, unique_by=lambda kv: kv.split("=")[0]))
    statements = st.one_of(
        simple, simple,
        st.builds(lambda ds, n, bs, w, b: [*ds, f"class {n}({', '.join(bs)}):{w}",
                                           *_indent(b)],
                  decorators, NAMES, bases, WAIVERS, body),
        st.builds(lambda ds, asy, n, p, b: [*ds, f"{asy}def {n}({p}):", *_indent(b)],
                  decorators, st.sampled_from(["", "async "]), NAMES, params, body),
        st.builds(lambda t, b, e: [f"if {t}:", *_indent(b), "else:", *_indent(e)],
                  st.one_of(EXPRESSIONS, st.sampled_from([
                      "TYPE_CHECKING", "typing.TYPE_CHECKING", "not TYPE_CHECKING",
                      "__name__ == '__main__'", "name == 'Params'"])), body, body),
        st.builds(lambda n, s, b: [f"for {n} in {s}:", *_indent(b)], NAMES, EXPRESSIONS, body),
        st.builds(lambda t, b: [f"while {t}:", *_indent(b)], EXPRESSIONS, body),
        st.builds(lambda e, n, b: [f"with {e} as {n}:", *_indent(b)], EXPRESSIONS, NAMES, body),
        st.builds(lambda b, h, f: ["try:", *_indent(b), "except (ValueError, KeyError) as e:",
                                   *_indent(h), "finally:", *_indent(f)], body, body, body),
        st.builds(lambda s, b: [f"match {s}:", "    case [x, *rest] if x:",
                                *_indent(_indent(b)), "    case _:", "        pass"],
                  EXPRESSIONS, body),
        body.map(lambda b: ["def __getattr__(name):", "    if name == 'Params':",
                            "        from .base import Params", "        return Params",
                            *_indent(b), "    raise AttributeError(name)"]),
    )
    return st.deferred(lambda: statements)


MODULES = st.lists(st.deferred(lambda: _statements(2)), max_size=6).map(
    lambda blocks: "\n".join(line for block in blocks for line in block) + "\n")

# --- projects ---------------------------------------------------------------------------------

BASE = ("from dataclasses import dataclass\n\n\n@dataclass(frozen=True, eq=False)\n"
        "class Params:\n    pass\n")
SENTINEL = """\
\"\"\"The sentinel mechanism the generated modules call.\"\"\"
import dataclasses

ALLOWED: frozenset[tuple[str, str]] = frozenset([("pkg.a.Legacy._config", "none"),
                                                ("pkg.b.f", "empty")])


@dataclasses.dataclass(frozen=True, slots=True)
class ModelConfig:
    none_as_sentinel: bool = False
    empty_as_sentinel: bool = False
    strict: bool = True


def _compat_is_sentinel(obj, none_as_sentinel=False, empty_as_sentinel=False, *, site: str):
    return obj is None or (empty_as_sentinel and not obj)


def is_sentinel(obj, none_as_sentinel=False, empty_as_sentinel=False):
    return _compat_is_sentinel(obj, none_as_sentinel, empty_as_sentinel, site="pkg._sentinel")
"""
#: Every rule on, each pointed at this package.
CONFIG: dict[str, Any] = {
    "structural-eq": {"authorities": ["pkg.base.Params"], "require-explicit-eq-false": True},
    "sentinel-inventory": {"constant": "pkg._sentinel.ALLOWED",
                           "config-classes": ["pkg._sentinel.ModelConfig"],
                           "gateways": ["pkg._sentinel._compat_is_sentinel"],
                           "public-helpers": ["pkg._sentinel.is_sentinel"],
                           "mechanism-modules": ["pkg._sentinel"], "dynamic-sites": []},
    "boundaries": [{"name": "base stays neutral", "modules": ["pkg.base", "pkg.a"],
                    "forbid": ["pkg.sub", "pydantic"]}],
    "layers": {"order": [["pkg.base", "pkg._sentinel"], ["pkg.a"], ["pkg.b", "pkg.sub"]]},
}
GENERATED = ("pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/sub/__init__.py", "pkg/sub/c.py")


@st.composite
def projects(draw: Callable[..., Any],
             modules: st.SearchStrategy[str] | None = None) -> dict[str, str]:
    modules = MODULES if modules is None else modules
    files = {"pkg/base.py": BASE, "pkg/_sentinel.py": SENTINEL}
    for path in GENERATED:
        files[path] = draw(modules) if draw(st.booleans()) or path == "pkg/a.py" else ""
    return files


def _mutate(source: str, data: st.DataObject) -> str:
    """Break a module the way editing breaks files: delete, insert or repeat a slice."""
    cut = data.draw(st.integers(0, len(source)))
    length = data.draw(st.integers(0, 8))
    kind = data.draw(st.sampled_from(["delete", "insert", "repeat", "truncate"]))
    if kind == "delete":
        return source[:cut] + source[cut + length:]
    if kind == "insert":
        noise = data.draw(st.sampled_from(["(", ")", "[", ":", "\n", "\t", "    ", "'", '"""',
                                           "\\", "\r", "\f", "é", "\x00", "#", "@", "lambda"]))
        return source[:cut] + noise + source[cut:]
    if kind == "repeat":
        return source[:cut] + source[max(0, cut - length):cut] + source[cut:]
    return source[:cut]


def broken_projects() -> st.SearchStrategy[dict[str, str]]:
    @st.composite
    def build(draw: Callable[..., Any]) -> dict[str, str]:
        files = draw(projects())
        data = draw(st.data())
        for path in data.draw(st.lists(st.sampled_from(GENERATED), min_size=1, max_size=2)):
            files[path] = _mutate(files[path], data)
        return files
    return build()


def _libcst_parses(source: str) -> bool:
    import libcst

    try:
        libcst.parse_module(source.encode())
    except Exception:
        return False
    return True


def _interpreter_parses(source: str) -> bool:
    # Generated text is full of escapes such as '\e', which CPython warns about; whether
    # it parses is all that is asked here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def check_project(files: dict[str, str]) -> list[Diagnostic]:
    """The property every generated project must have (assertions); its diagnostics."""
    diagnostics = lint_sources(files, list(shipped_rules()), config=CONFIG)
    unparsable = {d.path for d in diagnostics if d.code == "LL000"}
    for d in diagnostics:
        assert d.path in files, f"diagnostic outside the project's files: {d}"
        lines = files[d.path].replace("\r\n", "\n").replace("\r", "\n").count("\n") + 1
        loc = d.location
        assert 1 <= loc.line <= loc.end_line <= lines, f"line out of range: {d}"
        assert loc.column >= 1 and loc.end_column >= 1, f"column out of range: {d}"
        assert d.message.strip(), f"empty message: {d}"
    for path, source in files.items():
        by_libcst, by_interpreter = _libcst_parses(source), _interpreter_parses(source)
        if not by_libcst:  # lion-lint cannot have checked it: it must say so
            assert path in unparsable, f"{path} does not parse, yet no LL000 says so"
        elif by_interpreter:  # both parsers accept it: it was checked
            assert path not in unparsable, (
                f"{path} parses but was reported unparsable: "
                f"{[d.message for d in diagnostics if d.path == path]}")
    return diagnostics


def run_property(examples: int, seed: int | None) -> tuple[int, list[str]]:
    """Run the properties for ``examples`` examples each (for the sweep's --fuzz); return
    the number of failing properties and their shrunk failing examples."""
    import traceback

    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as with_seed

    strategies = {"generated": projects(), "broken": broken_projects()}
    try:
        import hypothesmith

        strategies["hypothesmith"] = projects(hypothesmith.from_grammar())
    except ImportError:
        pass
    failures: list[str] = []
    for name, strategy in strategies.items():
        @settings(max_examples=examples, deadline=None, database=None, print_blob=True,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def prop(files: dict[str, str]) -> None:
            check_project(files)

        if seed is not None:
            prop = with_seed(seed)(prop)
        try:
            prop()
        except Exception:
            failures.append(f"--- {name}\n{traceback.format_exc()}")
            print(f"fuzz: {name}: FAILED (shrunk example below)", flush=True)
        else:
            print(f"fuzz: {name}: {examples} examples, ok", flush=True)
    return len(failures), failures
