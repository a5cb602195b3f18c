"""Phase 2: the project index, built once from every file's facts and shared by all rules.

It answers the cross-module questions a per-file linter cannot: which module a file is,
what a name used in some scope refers to (through imports, relative imports, re-exports at
any depth, star imports, aliases and lazy ``__getattr__`` maps), and which classes descend
from which. Names resolve to *symbols*: fully qualified dotted names such as
``pkg.mod.Class`` or ``pkg.mod.f.<locals>.Inner`` for project definitions, the module name
for a module, and the dotted path as written for anything outside the project
(``dataclasses.dataclass``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from lintkit.core.facts import BindingFact, ClassFact, Expr, FileFacts, FunctionFact, ImportFact

SymbolKind = Literal["module", "class", "function", "variable", "external"]
_ALIAS_KINDS = ("assign", "annassign")


@dataclass(slots=True)
class ModuleInfo:
    """One project module: its dotted name and its file's facts."""

    name: str
    facts: FileFacts

    @property
    def path(self) -> str:
        return self.facts.path

    @property
    def package(self) -> str:
        """The package relative imports start from."""
        return self.name if self.facts.is_package else self.name.rpartition(".")[0]


@dataclass(slots=True)
class LazyExport:
    """A name a package's ``__getattr__`` loads on first access, and from where."""

    name: str
    module: str
    attr: str | None
    span: tuple[int, int, int, int]


_NO_NAMES: Mapping[str, Any] = MappingProxyType({})


class _Scope:
    """The names one scope defines, by kind. A kind's table is made with its first name:
    most scopes define names of one or two kinds, and the standard library has 45 000
    scopes, whose empty tables took 13 MB. A class or function name keeps its first
    definition, the one name resolution reads; an import or binding name keeps a tuple of
    all of them (a list per name took 20 MB over 210 000 names)."""

    __slots__ = ("classes", "functions", "imports", "bindings", "star_imports")

    classes: Mapping[str, ClassFact]
    functions: Mapping[str, FunctionFact]
    imports: Mapping[str, tuple[tuple[ImportFact, str, str | None], ...]]
    bindings: Mapping[str, tuple[BindingFact, ...]]
    star_imports: Sequence[ImportFact]

    def __init__(self) -> None:
        self.classes = self.functions = self.imports = self.bindings = _NO_NAMES
        self.star_imports = ()

    def _table(self, kind: str) -> dict[str, Any]:
        table = getattr(self, kind)
        if table is _NO_NAMES:
            table = {}
            setattr(self, kind, table)
        return table  # type: ignore[no-any-return]

    def add_first(self, kind: str, name: str, entry: Any) -> None:
        self._table(kind).setdefault(name, entry)

    def add(self, kind: str, name: str, entry: Any) -> None:
        table = self._table(kind)
        # Rebuilding the tuple is quadratic in the bindings of one name in one scope,
        # which are few.
        table[name] = (*table.get(name, ()), entry)

    def add_star_import(self, imp: ImportFact) -> None:
        self.star_imports = (*self.star_imports, imp)


def module_name_for(path: str, src_roots: tuple[str, ...]) -> tuple[str, bool]:
    """The dotted module name of a project-relative ``path`` and whether it is a package.

    The longest matching source root wins; ``""`` is the project root itself.
    """
    best = ""
    for root in src_roots:
        prefix = root.rstrip("/") + "/" if root not in ("", ".") else ""
        if path.startswith(prefix) and len(prefix) > len(best):
            best = prefix
    relative = path[len(best):]
    parts = relative[:-3].split("/") if relative.endswith(".py") else relative.split("/")
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


class ProjectIndex:
    """Every module of the project, with name resolution and the class hierarchy."""

    def __init__(self, files: list[FileFacts], module_names: dict[str, str]) -> None:
        self.modules: dict[str, ModuleInfo] = {}
        self.by_path: dict[str, ModuleInfo] = {}
        for facts in sorted(files, key=lambda f: f.path):
            name = module_names[facts.path]
            info = ModuleInfo(name, facts)
            # Two files claiming one module name (a stray copy): the first by path wins.
            self.modules.setdefault(name, info)
            self.by_path[facts.path] = info
        self.classes: dict[str, tuple[ModuleInfo, ClassFact]] = {}
        self.functions: dict[str, tuple[ModuleInfo, FunctionFact]] = {}
        self._scopes: dict[tuple[str, str], _Scope] = {}
        self._function_qualnames: dict[str, set[str]] = defaultdict(set)
        for info in self.by_path.values():
            self._index_module(info)
        self._resolved: dict[tuple[str, str, str], str | None] = {}
        self._resolving: set[tuple[str, str, str]] = set()
        #: How many times resolution met a cycle so far (see resolve).
        self._cycles_met = 0
        self._bases: dict[str, tuple[str | None, ...]] = {}
        #: base symbol -> the project classes that list it directly (built on first use).
        self._subclasses: dict[str, list[str]] | None = None
        self._lazy: dict[str, dict[str, LazyExport]] = {}
        self._exported: dict[str, frozenset[str]] = {}

    # --- building --------------------------------------------------------------------------

    def _scope(self, module: str, scope: str) -> _Scope:
        key = (module, scope)
        found = self._scopes.get(key)
        if found is None:
            found = self._scopes[key] = _Scope()
        return found

    def _index_module(self, info: ModuleInfo) -> None:
        module, facts = info.name, info.facts
        owns_module = self.modules.get(module) is info
        for cls in facts.classes:
            self._scope(module, cls.scope).add_first("classes", cls.name, cls)
            if owns_module:
                self.classes.setdefault(f"{module}.{cls.qualname}", (info, cls))
        for fn in facts.functions:
            self._scope(module, fn.scope).add_first("functions", fn.name, fn)
            self._function_qualnames[module].add(fn.qualname)
            if owns_module:
                self.functions.setdefault(f"{module}.{fn.qualname}", (info, fn))
        for imp in facts.imports:
            scope = self._scope(module, imp.scope)
            for name, asname in imp.names:
                if name == "*":
                    scope.add_star_import(imp)
                elif imp.is_from:
                    scope.add("imports", asname or name, (imp, name, asname))
                else:
                    bound = asname or name.split(".")[0]
                    scope.add("imports", bound, (imp, name, asname))
        for binding in facts.bindings:
            self._scope(module, binding.scope).add("bindings", binding.name, binding)

    # --- modules ----------------------------------------------------------------------------

    def module(self, name: str) -> ModuleInfo | None:
        return self.modules.get(name)

    def module_of_path(self, path: str) -> ModuleInfo | None:
        return self.by_path.get(path)

    def is_module(self, name: str) -> bool:
        return name in self.modules

    def absolute_module(self, importer: ModuleInfo, imp: ImportFact) -> str:
        """The absolute module an import statement names (``from ..a import b`` -> ``pkg.a``)."""
        if imp.level == 0:
            return imp.module
        parts = importer.package.split(".") if importer.package else []
        if imp.level > 1:
            parts = parts[: len(parts) - (imp.level - 1)] if imp.level - 1 <= len(parts) else []
        base = ".".join(parts)
        if imp.module:
            return f"{base}.{imp.module}" if base else imp.module
        return base

    def kind(self, symbol: str) -> SymbolKind:
        if symbol in self.modules:
            return "module"
        if symbol in self.classes:
            return "class"
        if symbol in self.functions:
            return "function"
        return "variable" if self.project_module_of(symbol) is not None else "external"

    def project_module_of(self, symbol: str) -> str | None:
        """The longest project module that ``symbol`` lies in (``pkg.mod`` of ``pkg.mod.X``)."""
        parts = symbol.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return module
        return None

    def canonical(self, symbol: str) -> str:
        """Where a fully qualified name (a rule's configured ``pkg.Params``) is defined,
        following re-exports and aliases (``pkg.base.Params``); unchanged when it lies
        outside the project or names nothing the index can follow."""
        module = self.project_module_of(symbol)
        if module is None or module == symbol:
            return symbol
        return self.resolve(module, symbol[len(module) + 1:]) or symbol

    # --- name resolution --------------------------------------------------------------------

    def resolve(self, module: str, dotted: str, scope: str = "") -> str | None:
        """The symbol that ``dotted`` (``Name`` or ``a.b.Name``) means in ``scope`` of
        ``module``, or None when it names nothing the index can see (a builtin, a local)."""
        key = (module, scope, dotted)
        if key in self._resolved:
            return self._resolved[key]
        if key in self._resolving:  # an alias cycle such as ``A = B; B = A``
            self._cycles_met += 1
            return None
        self._resolving.add(key)
        cycles_before = self._cycles_met
        try:
            head, _, rest = dotted.partition(".")
            # The head through the memo too: ``self.a()``, ``self.b.c()``... share it.
            symbol = (self.resolve(module, head, scope) if rest
                      else self._resolve_name(module, head, scope))
            if symbol is not None and rest:
                for attr in rest.split("."):
                    symbol = self._attribute(symbol, attr)
                    if symbol is None:
                        break
        finally:
            self._resolving.discard(key)
        # An answer that met a cycle depends on which of the cycle's names was asked first:
        # kept, it would make one module's answers depend on the modules asked about before.
        if self._cycles_met == cycles_before:
            self._resolved[key] = symbol
        return symbol

    def forget_resolutions(self) -> None:
        """Drop the memoised answers of ``resolve``: later questions are answered afresh,
        with the same answers, since none depends on what was asked before."""
        self._resolved.clear()

    def resolve_expr(self, module: str, expr: Expr | None, scope: str = "") -> str | None:
        """Resolve a reference expression, looking through one subscript (``Base[T]``)."""
        if expr is None:
            return None
        ref = expr.base_ref
        return self.resolve(module, ref, scope) if ref else None

    def _scope_chain(self, module: str, scope: str) -> list[str]:
        """The scopes a name used in ``scope`` is looked up in, innermost first.

        Class scopes other than the innermost one are skipped, as Python does.
        """
        chain = [scope] if scope else []
        current = scope
        functions = self._function_qualnames.get(module, set())
        while current:
            current = current.rpartition(".")[0]
            if current.endswith(".<locals>"):
                current = current[: -len(".<locals>")]
            if current and current in functions:
                chain.append(current)
        chain.append("")
        return chain

    def _resolve_name(self, module: str, name: str, scope: str) -> str | None:
        for each in self._scope_chain(module, scope):
            found = self._lookup(module, each, name)
            if found is not None:
                return found
        if module in self.modules and name in self._lazy_exports(module):
            export = self._lazy_exports(module)[name]
            return self._from_import(export.module, export.attr or name)
        return None

    def _lookup(self, module: str, scope: str, name: str) -> str | None:
        table = self._scopes.get((module, scope))
        if table is None:
            return None
        cls = table.classes.get(name)
        fn = table.functions.get(name)
        imports = table.imports.get(name, ())
        bindings = table.bindings.get(name, ())
        # Most lookups are of a name the scope does not bind (each enclosing scope of a
        # name is asked in turn): answered before building anything.
        if cls is None and fn is None and not imports and not bindings \
                and not table.star_imports:
            return None
        prefix = f"{module}.{scope}." if scope else f"{module}."
        candidates: list[str] = []
        if cls is not None:
            candidates.append(f"{module}.{cls.qualname}")
        if fn is not None:
            candidates.append(f"{module}.{fn.qualname}")
        for imp, imported, asname in imports:
            info = self.modules[module]
            if imp.is_from:
                target = self.absolute_module(info, imp)
                resolved = self._from_import(target, imported)
            else:
                resolved = imported if asname else imported.split(".")[0]
            if resolved is not None:
                candidates.append(resolved)
        for binding in bindings:
            if binding.kind in _ALIAS_KINDS and binding.value_kind in ("ref", "sub"):
                ref = binding.value.base_ref  # type: ignore[union-attr]  # it has a kind
                if ref and ref != name:
                    aliased = self.resolve(module, ref, scope)
                    if aliased is not None:
                        candidates.append(aliased)
                        continue
            candidates.append(prefix + name)
        if not candidates:
            for imp in table.star_imports:
                target = self.absolute_module(self.modules[module], imp)
                if target in self.modules and name in self.exported_names(target):
                    candidates.append(self._from_import(target, name) or f"{target}.{name}")
        # Prefer a definition the project can see (a try/except ImportError fallback, say).
        for candidate in candidates:
            if self.kind(candidate) in ("class", "function", "module"):
                return candidate
        return candidates[0] if candidates else None

    def _from_import(self, module: str, name: str) -> str | None:
        submodule = f"{module}.{name}" if module else name
        if submodule in self.modules:
            return submodule
        if module in self.modules:
            return self.resolve(module, name) or f"{module}.{name}"
        return submodule

    def _attribute(self, symbol: str, attr: str) -> str | None:
        if symbol in self.modules:
            return self._from_import(symbol, attr)
        nested = f"{symbol}.{attr}"
        if nested in self.classes or nested in self.functions:
            return nested
        return nested

    def exported_names(self, module: str) -> frozenset[str]:
        """Names ``from module import *`` binds: ``__all__`` if it is a literal, else every
        public module-level name."""
        # Asked again for every name a star import might supply (5 000 times on the
        # standard library), and each answer reads the module's bindings: kept.
        names = self._exported.get(module)
        if names is None:
            names = self._exported[module] = self._star_names(module)
        return names

    def _star_names(self, module: str) -> frozenset[str]:
        info = self.modules.get(module)
        if info is None:
            return frozenset()
        for binding in info.facts.bindings:
            if binding.scope == "" and binding.name == "__all__":
                value = binding.value
                if value is not None and value.kind in ("list", "tuple"):
                    return frozenset(i.value for i in value.items
                                     if i.kind == "const" and isinstance(i.value, str))
        table = self._scopes.get((module, ""))
        if table is None:
            return frozenset()
        names = set(table.classes) | set(table.functions) | set(table.imports) | set(table.bindings)
        return frozenset(n for n in names if not n.startswith("_"))

    # --- lazy exports -----------------------------------------------------------------------

    def _lazy_exports(self, module: str) -> dict[str, LazyExport]:
        if module not in self._lazy:
            self._lazy[module] = self._compute_lazy_exports(self.modules[module])
        return self._lazy[module]

    def lazy_exports(self, module: str) -> dict[str, LazyExport]:
        """What a module-level ``__getattr__`` loads per name: from ``if name == "X":``
        branches that import, and from module-level literal maps of name to module path
        (``{"X": "pkg.mod"}``, ``{"X": ("sub.mod", "Attr")}``, relative to the package)."""
        return self._lazy_exports(module) if module in self.modules else {}

    def _compute_lazy_exports(self, info: ModuleInfo) -> dict[str, LazyExport]:
        facts = info.facts
        if not any(f.name == "__getattr__" and f.scope == "" for f in facts.functions):
            return {}
        exports: dict[str, LazyExport] = {}
        for imp in facts.imports:
            if imp.scope == "__getattr__" and imp.guard:
                target = self.absolute_module(info, imp)
                attr = imp.names[0][0] if imp.is_from else None
                if imp.is_from and f"{target}.{attr}" in self.modules:
                    target, attr = f"{target}.{attr}", None
                exports[imp.guard] = LazyExport(imp.guard, target, attr, imp.span)
        for binding in facts.bindings:
            mapping = None if binding.scope else binding.value
            if mapping is None or mapping.kind != "dict":
                continue
            for key, value in zip(mapping.items, mapping.values):
                if key.kind != "const" or not isinstance(key.value, str) or value is None:
                    continue
                target, attr = _lazy_target(value)
                if target is None:
                    continue
                absolute = self._lazy_module(info, target)
                if absolute is None:
                    continue
                exports.setdefault(key.value, LazyExport(key.value, absolute, attr, key.span))
        return exports

    def _lazy_module(self, info: ModuleInfo, target: str) -> str | None:
        stripped = target.lstrip(".")
        package = info.package
        candidates = [f"{package}.{stripped}" if package else stripped, stripped]
        for candidate in candidates:
            if candidate in self.modules:
                return candidate
        # A path outside the project (``"pydantic"``) counts only when written absolutely.
        return None if target.startswith(".") or not stripped else stripped

    # --- classes ---------------------------------------------------------------------------

    def class_bases(self, symbol: str) -> tuple[str | None, ...]:
        """The resolved symbols of a project class's bases (None where unresolvable)."""
        if symbol in self._bases:
            return self._bases[symbol]
        info, cls = self.classes[symbol]
        resolved = tuple(self.resolve_expr(info.name, base, cls.scope) for base in cls.bases)
        self._bases[symbol] = resolved
        return resolved

    def descent(self, symbol: str, targets: frozenset[str] | set[str]) -> list[str] | None:
        """The chain ``[symbol, base, ..., target]`` by which a class descends from one of
        ``targets``, or None. Depth-first in base order, so the chain is the one Python's
        MRO would meet first for ordinary hierarchies."""
        return self._descend(symbol, targets, set())

    def _descend(self, current: str, targets: frozenset[str] | set[str],
                 seen: set[str]) -> list[str] | None:
        # A method, not a nested function: a recursive closure is a reference cycle, and
        # the engine runs with the cyclic collector paused.
        if current in seen:
            return None
        seen.add(current)
        if current not in self.classes:
            return None
        for base in self.class_bases(current):
            if base is None:
                continue
            if base in targets:
                return [current, base]
            found = self._descend(base, targets, seen)
            if found is not None:
                return [current, *found]
        return None

    def subclasses_of(self, targets: frozenset[str] | set[str]) -> dict[str, list[str]]:
        """Every project class descending from a target, with its chain (sorted by symbol)."""
        family: dict[str, list[str]] = {}
        for symbol in sorted(self._below(targets)):
            if symbol in targets:
                continue
            chain = self.descent(symbol, targets)
            if chain is not None:
                family[symbol] = chain
        return family

    def _below(self, targets: frozenset[str] | set[str]) -> set[str]:
        """The project classes with a target among their ancestors (found downwards, so a
        rule asking about one base does not walk up from every class of the project)."""
        if self._subclasses is None:
            self._subclasses = {}
            for symbol in sorted(self.classes):
                for base in self.class_bases(symbol):
                    if base is not None:
                        self._subclasses.setdefault(base, []).append(symbol)
        found: set[str] = set()
        stack = list(targets)
        while stack:
            for subclass in self._subclasses.get(stack.pop(), ()):
                if subclass not in found:
                    found.add(subclass)
                    stack.append(subclass)
        return found


def _lazy_target(value: Expr) -> tuple[str | None, str | None]:
    if value.kind == "const" and isinstance(value.value, str):
        module, _, attr = value.value.partition(":")
        return module, attr or None
    if value.kind in ("tuple", "list") and value.items:
        first = value.items[0]
        if first.kind == "const" and isinstance(first.value, str):
            attr = value.items[1].value if len(value.items) > 1 else None
            return first.value, attr if isinstance(attr, str) else None
    return None, None
