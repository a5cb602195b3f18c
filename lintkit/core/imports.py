"""The import graph: what executing a module imports, and when.

An edge ``A -> B`` says that running module ``A`` imports ``B``. Its ``kind`` says how:

``parent``   importing ``a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first
``import``   an ``import``/``from`` statement run at import time (module level, class bodies,
             both branches of ``try``/``except`` and ``if``/``else``, ``with`` blocks, the
             ``else`` of ``if TYPE_CHECKING:`` and the body of ``if not TYPE_CHECKING:``);
             ``from a.b import c`` also imports the submodule ``a.b.c`` when there is one
``lazy``     ``from pkg import Name`` where ``pkg``'s module ``__getattr__`` imports a module
             for ``Name`` (a literal map or ``if name == "Name":`` branches)
``dynamic``  ``importlib.import_module("a.b")`` / ``__import__("a.b")`` with literal names,
             run at import time
``called``   an import inside a project function that module-level code calls (or applies
             as a decorator) while the module is being imported
``call``     an import that runs only when a function is called (also a lazy ``__getattr__``
             map): not part of the import-time closure, kept for contracts that ask for it
``typing``   the true branch of ``if TYPE_CHECKING:``: never executed

Modules outside the project (third-party, stdlib) are leaves named by their dotted path as
written. Dynamic imports whose module name is not a literal are kept as ``opaque``: the graph
cannot see what they load.
"""

from __future__ import annotations

import re
import weakref
from collections import defaultdict, deque
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from lintkit.core.facts import CallFact, Expr, ImportFact, Span, When
from lintkit.core.index import ModuleInfo, ProjectIndex

EdgeKind = Literal["parent", "import", "lazy", "dynamic", "called", "call", "typing"]

#: The kinds of edge that run when a module is imported.
IMPORT_TIME: frozenset[str] = frozenset({"parent", "import", "lazy", "dynamic", "called"})
#: Import time plus imports that run when the module's functions are called.
WITH_CALL_TIME: frozenset[str] = IMPORT_TIME | {"call"}

_KIND_LABELS = {
    "parent": "parent package",
    "import": "import",
    "lazy": "lazy export",
    "dynamic": "dynamic import",
    "called": "import in a function called at import time",
    "call": "call-time import",
    "typing": "TYPE_CHECKING import",
}
_IMPORT_MODULE = frozenset({"importlib.import_module"})
_DUNDER_IMPORT = frozenset({"builtins.__import__", "importlib.__import__"})
_PARENT_SPAN: Span = (1, 1, 1, 1)


@dataclass(frozen=True, slots=True)
class Edge:
    """One way executing ``importer`` imports ``imported``.

    ``path``/``span`` locate the statement or call that does it (for a parent edge, the
    parent package's file). ``at`` is the line in the importer's own file where it happens
    (0 for a parent edge): edges of one module are ordered by it. ``names`` are the names a
    from-import takes from a module outside the project (``from google import genai``:
    ``genai`` may be a submodule). ``via`` explains lazy and called edges.
    """

    importer: str
    imported: str
    kind: EdgeKind
    path: str
    span: Span
    at: int = 0
    names: tuple[str, ...] = ()
    via: str = ""

    @property
    def label(self) -> str:
        return _KIND_LABELS[self.kind]

    def describe(self) -> str:
        """How and where, for one hop of a printed chain: ``lionagi/__init__.py:7``."""
        if self.kind == "parent":
            return "parent package"
        where = f"{self.path}:{self.span[0]}"
        if self.kind == "import":
            return where
        extra = f" ({self.via})" if self.via else ""
        return f"{self.label}, {where}{extra}"


@dataclass(frozen=True, slots=True)
class OpaqueImport:
    """A dynamic import whose module name the graph cannot read (not a literal)."""

    module: str  # the module whose execution (or functions) runs it
    path: str
    span: Span
    when: When
    call: str  # the callee as written
    via: str = ""


class ModulePattern:
    """A dotted module name that also stands for its submodules, with optional globs.

    ``pydantic`` matches ``pydantic`` and ``pydantic.fields``, not ``pydantic_core``; ``*``
    matches within one dotted segment (``pydantic_*``, ``lionagi.*.adapters``) and a ``**``
    segment matches any number of segments.
    """

    __slots__ = ("text", "_regex")
    _SEGMENT = re.compile(r"^(\*\*|[A-Za-z0-9_*]+)$")

    def __init__(self, text: str) -> None:
        text = text.strip()
        segments = text.split(".")
        if not text or not all(self._SEGMENT.match(s) for s in segments):
            raise ValueError(f"'{text}' is not a dotted module name or pattern")
        self.text = text
        parts = []
        for segment in segments:
            if segment == "**":
                parts.append(r"[^.]+(?:\.[^.]+)*")
            else:
                parts.append("[^.]*".join(re.escape(p) for p in segment.split("*")))
        self._regex = re.compile(r"^" + r"\.".join(parts) + r"(?:\..+)?$")

    def matches(self, module: str) -> bool:
        return self._regex.match(module) is not None

    def matches_edge(self, edge: Edge) -> str | None:
        """The module of ``edge`` this pattern matches (its target, or a name it takes from a
        module outside the project), or None."""
        if self.matches(edge.imported):
            return edge.imported
        for name in edge.names:
            candidate = f"{edge.imported}.{name}"
            if self.matches(candidate):
                return candidate
        return None

    def __repr__(self) -> str:
        return f"ModulePattern({self.text!r})"


def ancestors(module: str) -> list[str]:
    """``a.b.c`` -> ``["a", "a.b"]``: the packages importing ``module`` runs first."""
    parts = module.split(".")
    return [".".join(parts[:cut]) for cut in range(1, len(parts))]


def resolve_relative(name: str, package: str) -> str | None:
    """``importlib.util.resolve_name`` without importing anything (None if it escapes)."""
    level = len(name) - len(name.lstrip("."))
    if level == 0:
        return name
    parts = package.split(".") if package else []
    if level - 1 > len(parts) or not parts:
        return None
    base = ".".join(parts[: len(parts) - (level - 1)])
    rest = name[level:]
    return f"{base}.{rest}" if rest else base


class ImportGraph:
    """Every import edge of a project, from the index's facts.

    A module's edges are built the first time they are asked for: a contract on one
    package reads the few dozen modules its imports reach, not the thousand its project
    holds (on a LionAGI checkout of 1,062 modules, LL004 went from 0.108 to 0.018 s). Which
    modules were built first changes nothing: a module's edges depend only on its own facts
    and the index. The graph reads the index weakly, so the index must outlive it (a run's
    Project keeps it)."""

    def __init__(self, index: ProjectIndex) -> None:
        # Weakly: import_graph keeps a graph for as long as its index lives, which a
        # strong reference from the graph would make forever.
        self.index: ProjectIndex = weakref.proxy(index)
        # A project module is here once built; a module outside the project once a built
        # module imports it (its edges are to the project packages above it).
        self._out: dict[str, list[Edge]] = {}
        self._opaque: dict[str, list[OpaqueImport]] = {}
        self._complete = False
        # Facts by scope, per module, for the few modules whose functions run at import.
        self._by_scope: dict[str, tuple[dict[str, list[ImportFact]],
                                        dict[str, list[CallFact]]]] = {}
        self._callees: dict[str, frozenset[str]] = {}

    # --- queries ---------------------------------------------------------------------------

    def is_project(self, module: str) -> bool:
        return module in self.index.modules

    def edges_from(self, module: str, kinds: Container[str] = IMPORT_TIME) -> list[Edge]:
        return [e for e in self._edges(module) if e.kind in kinds]

    def edges(self, kinds: Container[str] = IMPORT_TIME) -> Iterator[Edge]:
        self._build_all()
        for importer in sorted(self._out):
            yield from self.edges_from(importer, kinds)

    @property
    def opaque(self) -> list[OpaqueImport]:
        """Every dynamic import of the project whose module name is not a literal."""
        return self.opaque_in(self.index.modules)

    def reach(self, starts: Iterable[str], kinds: Container[str] = IMPORT_TIME, *,
              blocked: Callable[[Edge], bool] | None = None,
              stop: Container[str] = ()) -> dict[str, Edge | None]:
        """Breadth first from ``starts``: each module reached, in order of distance, with the
        edge that first reached it (None for a start). Modules in ``stop`` are reached but
        not expanded."""
        reached: dict[str, Edge | None] = {}
        queue: deque[str] = deque()
        for start in starts:
            if start not in reached:
                reached[start] = None
                queue.append(start)
        while queue:
            current = queue.popleft()
            if current in stop and reached[current] is not None:
                continue
            for edge in self._edges(current):
                if edge.kind not in kinds or edge.imported in reached:
                    continue
                if blocked is not None and blocked(edge):
                    continue
                reached[edge.imported] = edge
                queue.append(edge.imported)
        return reached

    def closure(self, module: str, kinds: Container[str] = IMPORT_TIME) -> dict[str, Edge | None]:
        """What importing ``module`` loads (the module itself included), with the edge that
        first reaches each."""
        return self.reach([module], kinds)

    def opaque_in(self, modules: Iterable[str],
                  whens: Container[str] | None = None) -> list[OpaqueImport]:
        """The opaque imports that ``modules`` run (those of ``whens`` only, if given)."""
        found = [o for module in sorted(modules) if self.is_project(module)
                 for o in self._opaque_of(module) if whens is None or o.when in whens]
        found.sort(key=lambda o: (o.path, o.span, o.module))
        return found

    # --- building --------------------------------------------------------------------------

    def _edges(self, module: str) -> list[Edge]:
        edges = self._out.get(module)
        if edges is not None:
            return edges
        if module in self.index.modules:
            return self._build(module)
        # Outside the project, a module has edges (to the project packages above it) only
        # if the project imports it, which only the whole graph can tell. A module reached
        # through an edge is known already; this is for one asked for by name.
        self._build_all()
        return self._out.get(module, [])

    def _opaque_of(self, module: str) -> list[OpaqueImport]:
        self._edges(module)
        return self._opaque.get(module, [])

    def _build_all(self) -> None:
        if not self._complete:
            for name in sorted(self.index.modules):
                self._edges(name)
            self._complete = True

    def _build(self, module: str) -> list[Edge]:
        info = self.index.modules[module]
        edges = self._add_parents(module)
        for imp in info.facts.imports:
            self._add_statement(info, imp)
        callees = self._import_callees(info)
        for call in info.facts.calls:
            func = call.func
            if func is None:
                continue
            # Most calls are not imports: compare the callee's last name before resolving.
            if func.rpartition(".")[2] in callees:
                self._add_dynamic(info, call, call.when)
            if call.when == "import":
                self._follow_call(info, func, call.scope, call.span[0])
        self._add_lazy_maps(info)
        self._add_decorated(info)
        edges.sort(key=_edge_order)
        return edges

    def _add(self, edge: Edge) -> None:
        # Every edge is added while its importer is built.
        if edge.importer == edge.imported:
            return
        self._out[edge.importer].append(edge)
        if edge.imported not in self.index.modules and edge.imported not in self._out:
            # A module the project does not define under a project package (generated, a
            # C extension): importing it still runs the project packages above it.
            self._add_parents(edge.imported).sort(key=_edge_order)

    def _add_parents(self, module: str) -> list[Edge]:
        edges = self._out[module] = []
        for parent in ancestors(module):
            info = self.index.modules.get(parent)
            if info is not None:
                edges.append(Edge(module, parent, "parent", info.path, _PARENT_SPAN))
        return edges

    def _add_statement(self, info: ModuleInfo, imp: ImportFact) -> None:
        kind = _statement_kind(imp.when)
        if kind is None:
            return
        line = imp.span[0]

        def edge(target: str, edge_kind: EdgeKind = kind, names: tuple[str, ...] = (),
                 via: str = "", path: str = info.path, span: Span = imp.span) -> None:
            self._add(Edge(info.name, target, edge_kind, path, span, line, names, via))

        if not imp.is_from:
            for module, _ in imp.names:
                if module:
                    edge(module)
            return
        base = self.index.absolute_module(info, imp)
        if not base:
            return
        names = tuple(name for name, _ in imp.names)
        edge(base, names=() if base in self.index.modules else names)
        if base not in self.index.modules:
            return
        if names == ("*",):
            names = tuple(sorted(self.index.exported_names(base)))
        lazy = self.index.lazy_exports(base)
        for name in names:
            submodule = f"{base}.{name}"
            if submodule in self.index.modules:
                edge(submodule)
            elif name in lazy:
                export = lazy[name]
                self._add(Edge(info.name, export.module, "lazy" if kind == "import" else kind,
                               info.path, imp.span, line, (),
                               f"{name} from {base}.__getattr__"))

    def _dynamic_target(self, info: ModuleInfo, call: CallFact) -> tuple[bool, list[str]]:
        """Whether ``call`` is a dynamic import, and the modules it names (empty when it
        names them with something other than literals)."""
        func = call.func
        if func is None or func.rpartition(".")[2] not in self._import_callees(info):
            return False, []
        resolved = self.index.resolve(info.name, func, call.scope)
        expr = call.call
        if resolved in _IMPORT_MODULE:
            name = _const_str(_arg(expr, 0, "name"))
            if name is None:
                return True, []
            if name.startswith("."):
                package = self._package_value(info, _arg(expr, 1, "package"))
                absolute = resolve_relative(name, package) if package is not None else None
                return True, [absolute] if absolute else []
            return True, [name]
        if (func == "__import__" and resolved is None) or resolved in _DUNDER_IMPORT:
            name = _const_str(_arg(expr, 0, "name"))
            level_expr = _arg(expr, 4, "level")
            level = level_expr.value if level_expr is not None and level_expr.kind == "const" else 0
            if name is None or not isinstance(level, int):
                return True, []
            module = resolve_relative("." * level + name, info.package) if level else name
            if not module:
                return True, []
            targets = [module]
            fromlist = _arg(expr, 3, "fromlist")
            if fromlist is not None and fromlist.kind in ("tuple", "list"):
                for item in fromlist.items:
                    sub = f"{module}.{item.value}" if _const_str(item) else None
                    if sub is not None and sub in self.index.modules:
                        targets.append(sub)
            return True, targets
        return False, []

    def _import_callees(self, info: ModuleInfo) -> frozenset[str]:
        """The last segments a dynamic-import callee can have in this module (its own name,
        or an alias it was imported under): a cheap filter before resolving every call."""
        found = self._callees.get(info.name)
        if found is None:
            names = {"import_module", "__import__"}
            for imp in info.facts.imports:
                if imp.is_from:
                    names.update(asname for name, asname in imp.names
                                 if asname and name in ("import_module", "__import__"))
            found = self._callees[info.name] = frozenset(names)
        return found

    def _package_value(self, info: ModuleInfo, expr: Expr | None) -> str | None:
        if expr is None:
            return None
        if expr.kind == "ref" and expr.text == "__package__":
            return info.package
        if expr.kind == "ref" and expr.text == "__name__":
            return info.name
        return _const_str(expr)

    def _add_dynamic(self, info: ModuleInfo, call: CallFact, when: When, *, importer: str = "",
                     kind: EdgeKind | None = None, at: int = 0, via: str = "") -> None:
        is_import, targets = self._dynamic_target(info, call)
        if not is_import:
            return
        edge_kind = kind or {"import": "dynamic", "call": "call", "typing": "typing"}.get(when)
        if edge_kind is None:
            return
        importer = importer or info.name
        if not targets:
            if edge_kind in ("call", "typing") and call.scope == "__getattr__" \
                    and self.index.lazy_exports(info.name):
                return  # a lazy-export map the index reads: its entries are edges already
            when_run: When = "call" if edge_kind == "call" else \
                "typing" if edge_kind == "typing" else "import"
            self._opaque.setdefault(importer, []).append(
                OpaqueImport(importer, info.path, call.span, when_run, call.func or "", via))
            return
        how = via or f"{call.func}()"
        for target in targets:
            self._add(Edge(importer, target, edge_kind, info.path, call.span,
                           at or call.span[0], (), how))

    def _add_lazy_maps(self, info: ModuleInfo) -> None:
        for name, export in sorted(self.index.lazy_exports(info.name).items()):
            self._add(Edge(info.name, export.module, "call", info.path, export.span,
                           export.span[0], (), f"lazy export {name} of {info.name}"))

    def _add_decorated(self, info: ModuleInfo) -> None:
        """Applying a decorator calls it: its body runs while the module is imported."""
        for fn in info.facts.functions:
            if fn.when == "import":
                for decorator in fn.decorators:
                    if decorator.kind == "ref":
                        self._follow_call(info, decorator.text, fn.scope, decorator.span[0])
        for cls in info.facts.classes:
            if cls.when == "import":
                for decorator in cls.decorators:
                    if decorator.kind == "ref":
                        self._follow_call(info, decorator.text, cls.scope, decorator.span[0])

    def _follow_call(self, caller: ModuleInfo, func: str, scope: str, line: int) -> None:
        symbol = self.index.resolve(caller.name, func, scope)
        if symbol is None or symbol not in self.index.functions:
            return
        seen: set[str] = set()
        pending = [symbol]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            owner, fn = self.index.functions[current]
            via = f"in {fn.qualname}(), called at {caller.path}:{line}"
            imports_in, calls_in = self._scopes_of(owner)
            for imp in imports_in.get(fn.qualname, ()):
                if imp.when != "call":
                    continue
                for target in self._statement_targets(owner, imp):
                    self._add(Edge(caller.name, target, "called", owner.path, imp.span, line,
                                   (), via))
            for inner in calls_in.get(fn.qualname, ()):
                if inner.when != "call" or inner.func is None:
                    continue
                self._add_dynamic(owner, inner, "import", importer=caller.name, kind="called",
                                  at=line, via=via)
                callee = self.index.resolve(owner.name, inner.func, inner.scope)
                if callee is not None and callee in self.index.functions:
                    pending.append(callee)

    def _scopes_of(self, info: ModuleInfo) -> tuple[dict[str, list[ImportFact]],
                                                    dict[str, list[CallFact]]]:
        found = self._by_scope.get(info.name)
        if found is None:
            imports: dict[str, list[ImportFact]] = defaultdict(list)
            calls: dict[str, list[CallFact]] = defaultdict(list)
            for imp in info.facts.imports:
                imports[imp.scope].append(imp)
            for call in info.facts.calls:
                calls[call.scope].append(call)
            found = self._by_scope[info.name] = (imports, calls)
        return found

    def _statement_targets(self, info: ModuleInfo, imp: ImportFact) -> list[str]:
        if not imp.is_from:
            return [module for module, _ in imp.names if module]
        base = self.index.absolute_module(info, imp)
        if not base:
            return []
        targets = [base]
        for name, _ in imp.names:
            if f"{base}.{name}" in self.index.modules:
                targets.append(f"{base}.{name}")
        return targets


def _statement_kind(when: When) -> EdgeKind | None:
    return {"import": "import", "call": "call", "typing": "typing"}.get(when)  # type: ignore[return-value]


def _edge_order(edge: Edge) -> tuple[int, int, str, str, int]:
    # Parents first (Python runs them before the module), then in source order.
    return (0 if edge.kind == "parent" else 1, edge.at, edge.imported, edge.kind, edge.span[1])


def _arg(call: Expr, position: int, keyword: str) -> Expr | None:
    found = call.keyword(keyword)
    if found is not None:
        return found
    items = call.items
    if position < len(items) and items[position].kind != "starred":
        return items[position]
    return None


def _const_str(expr: Expr | None) -> str | None:
    if expr is not None and expr.kind == "const" and isinstance(expr.value, str):
        return expr.value
    return None


def chain_to(reached: dict[str, Edge | None], module: str) -> list[Edge]:
    """The edges from a start of ``reach`` to ``module``, in order."""
    chain: list[Edge] = []
    edge = reached.get(module)
    while edge is not None:
        chain.append(edge)
        edge = reached.get(edge.importer)
    chain.reverse()
    return chain


def hop_text(edge: Edge) -> str:
    """One hop of a chain: ``lionagi -> pydantic: lionagi/__init__.py:7``."""
    return f"{edge.importer} -> {edge.imported}: {edge.describe()}"


def format_chain(chain: list[Edge]) -> list[str]:
    """One line per hop, aligned; each is :func:`hop_text` with the gap widened."""
    heads = [f"{e.importer} -> {e.imported}:" for e in chain]
    width = max((len(h) for h in heads), default=0)
    return [f"{head:<{width}}  {edge.describe()}" for head, edge in zip(heads, chain, strict=True)]


_GRAPHS: weakref.WeakKeyDictionary[ProjectIndex, ImportGraph] = weakref.WeakKeyDictionary()


def import_graph(index: ProjectIndex) -> ImportGraph:
    """The project's import graph, built on first use and shared by every rule of a run;
    it goes when the index goes."""
    graph = _GRAPHS.get(index)
    if graph is None:
        graph = _GRAPHS[index] = ImportGraph(index)
    return graph

