"""What executing a module runs, and which shared containers that code mutates.

The model behind LL003. Executing a module runs its import-time code (facts whose ``when``
is ``"import"``: top-level statements, module-level ``if``/``try``/``with``/``for`` bodies,
class bodies, decorator expressions, default values and base expressions), the decorator
calls those decorators imply, and the bodies of the project functions that code calls,
followed through the index to a bounded depth. Creating a class also runs the
class-creation hooks of its bases; :meth:`Effects.summary` of such a hook says what it does.

A function's *effects* are the stores into shared mutable containers its body makes:
module-level or class-level dicts/lists/sets written by item assignment, ``del``,
augmented assignment or a mutating method, plus calls of configured third-party
registration callables. A store into an attribute of the receiving instance
(``self._items[k] = v``) is kept relative to ``self`` and becomes a store into a shared
object only when the method is called on one (a module-level instance, an enum member).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from lintkit.core.facts import (BindingFact, CallFact, ClassFact, Expr, FileFacts, FunctionFact,
                                MutationFact)
from lintkit.core.index import ModuleInfo, ProjectIndex

#: The first parameter of these methods is the class even without ``@classmethod``.
IMPLICIT_CLASSMETHODS = frozenset({"__init_subclass__", "__pydantic_init_subclass__",
                                   "__class_getitem__", "__new__"})
#: Methods that run when a class is called.
CONSTRUCTION_METHODS = ("__new__", "__init__", "__post_init__", "model_post_init")
_COMPREHENSIONS = frozenset({"ListComp", "DictComp", "SetComp"})
#: The kinds of value a container can be made by: a display, a comprehension, a call.
_CONTAINER_KINDS = frozenset({"list", "dict", "set", "other", "call"})
_EXTERNAL_METACLASSES = frozenset({"abc.ABCMeta", "enum.EnumMeta", "enum.EnumType"})
_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag",
                         "enum.IntFlag"})
SELF = "<self>"

_VERBS = {
    "append": "appends to", "appendleft": "appends to", "add": "adds to",
    "extend": "extends", "extendleft": "extends", "insert": "inserts into",
    "update": "updates", "setdefault": "sets a key of", "__setitem__": "sets an item of",
    "setitem": "sets an item of", "augitem": "updates an item of", "augattr": "extends",
    "augassign": "extends",
}


#: What an augmented assignment does to the container it names, by operator: ``+=``
#: concatenates, ``|=`` merges a set or a dict, ``-=`` and ``&=`` only take away.
_AUGMENTED_VERBS = {"+=": "extends", "|=": "updates", "-=": "removes from",
                    "&=": "removes from"}


def verb_for(operation: str, operator: str | None = None) -> str:
    """How a message words ``operation`` (a method called, or a kind of store; for an
    augmented store of a name or an attribute, its ``operator`` decides)."""
    if operator is not None and operation in ("augassign", "augattr"):
        return _AUGMENTED_VERBS.get(operator, "updates")
    return _VERBS.get(operation, "removes from" if operation in (
        "delitem", "__delitem__", "pop", "popitem", "remove", "discard", "clear")
        else f"calls .{operation}() on")


@dataclass(frozen=True, slots=True)
class Hop:
    """A function entered on the way to a store: its name (``<locals>`` dropped) and where
    it is defined."""

    name: str
    path: str
    line: int


@dataclass(frozen=True, slots=True)
class Target:
    """A shared container (or a third-party registration callable, ``module`` None)."""

    name: str
    symbol: str
    module: str | None
    path: str | None = None
    line: int = 0

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.path else ""


@dataclass(frozen=True, slots=True)
class Effect:
    """One store a piece of code makes. ``target`` None means an attribute of ``self``
    (``self_attr``), resolved when the method is called on a known object."""

    verb: str
    target: Target | None
    chain: tuple[Hop, ...] = ()
    self_attr: str = ""
    pattern: str = ""  # the registration-decorators pattern that matched, if any

    def via(self, hop: Hop) -> Effect:
        return Effect(self.verb, self.target, (hop, *self.chain), self.self_attr, self.pattern)

    def sort_key(self) -> tuple[object, ...]:
        """Shortest chain first, then the registry defined first."""
        target = (self.target.path or "", self.target.line, self.target.symbol,
                  self.target.name) if self.target else ("", 0, self.self_attr, "")
        hops = tuple((h.path, h.line, h.name) for h in self.chain)
        return (len(self.chain), target, self.verb, self.pattern, hops)


@dataclass(frozen=True, slots=True)
class Val:
    """What an expression evaluates to, as far as the model can tell.

    kind: ``module``/``class``/``function`` (a project symbol), ``instance`` (of class
    ``symbol``; ``owner`` the shared object it is, :data:`SELF`, or None for a transient
    one), ``container`` (a shared container, ``target``), ``selfattr`` (attribute ``attr``
    of ``owner``) or ``external`` (``symbol`` outside the project)."""

    kind: str
    symbol: str = ""
    owner: str | None = None
    attr: str = ""
    target: Target | None = None


@dataclass(frozen=True)
class Settings:
    container_types: frozenset[str]
    mutating_methods: frozenset[str]
    registration_callables: frozenset[str]
    registration_decorators: tuple[str, ...]
    dispatch_decorators: frozenset[str]
    cache_names: tuple[str, ...]
    max_depth: int


@dataclass(slots=True)
class Site:
    """A piece of import-time code and what it mutates."""

    kind: str  # "call" | "mutation" | "decorator"
    span: tuple[int, int, int, int]
    subject: str
    scope: str  # the qualified name the site belongs to ("" for the module)
    effects: list[Effect] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Region:
    """What one runner (the module's import-time code, or a function) runs, by kind."""

    calls: Sequence[CallFact] = ()
    mutations: Sequence[MutationFact] = ()
    augassigns: Sequence[BindingFact] = ()
    decorated: Sequence[FunctionFact | ClassFact] = ()


_NOTHING_RUNS = _Region()


def _runnable(facts: FileFacts) -> tuple[Sequence[CallFact], Sequence[MutationFact],
                                        Sequence[BindingFact],
                                        Sequence[FunctionFact | ClassFact]]:
    """A file's facts that run code, in _Region's order: calls, stores, augmented
    assignments, decorated definitions."""
    return (facts.calls, facts.mutations,
            [b for b in facts.bindings if b.kind == "augassign"],
            [d for d in (*facts.functions, *facts.classes) if d.decorators])


def _region(calls: list[CallFact], mutations: list[MutationFact],
            augassigns: list[BindingFact], decorated: list[FunctionFact | ClassFact]) -> _Region:
    if not (calls or mutations or augassigns or decorated):
        return _NOTHING_RUNS
    return _Region(calls or (), mutations or (), augassigns or (), decorated or ())


class Effects:
    """The import-time model of one project (memoised; build one per run)."""

    def __init__(self, index: ProjectIndex, settings: Settings) -> None:
        self.index = index
        self.settings = settings
        self.registries = self._find_registries()
        self._import_regions: dict[str, _Region] = {}
        self._function_regions: dict[str, dict[str, _Region]] = {}
        self._bindings: dict[tuple[str, str], dict[str, list[BindingFact]]] = {}
        self._mro: dict[str, list[str]] = {}
        self._self_assigned: dict[str, set[str]] = {}
        self._summaries: dict[tuple[str, int], tuple[Effect, ...]] = {}
        self._evaluating: set[tuple[object, ...]] = set()
        self._values: dict[tuple[object, ...], list[Val]] = {}
        #: How many evaluations were cut short so far (see eval).
        self._cut_short = 0

    # --- registries ----------------------------------------------------------------------

    def _find_registries(self) -> dict[str, Target]:
        found: dict[str, Target] = {}
        for info in self.index.by_path.values():
            if self.index.modules.get(info.name) is not info:
                continue
            for binding in info.facts.bindings:
                if binding.when == "typing":
                    continue
                if binding.scope and f"{info.name}.{binding.scope}" not in self.index.classes:
                    continue  # a function's local, not a shared container
                if not self._is_container(info, binding):
                    continue
                if any(fnmatchcase(binding.name.lower(), p.lower())
                       for p in self.settings.cache_names):
                    continue  # a memo table, filled lazily: not a registry
                owner = f"{binding.scope}." if binding.scope else ""
                symbol = f"{info.name}.{owner}{binding.name}"
                found.setdefault(symbol, Target(f"{owner}{binding.name}", symbol, info.name,
                                                info.path, binding.span[0]))
        return found

    def _is_container(self, info: ModuleInfo, binding: BindingFact) -> bool:
        if binding.kind not in ("assign", "annassign") or binding.value_kind not in _CONTAINER_KINDS:
            return False
        value = binding.value
        if value is None:
            return False
        if value.kind in ("list", "dict", "set") or (
                value.kind == "other" and value.text in _COMPREHENSIONS):
            return True
        if value.kind != "call" or value.func is None:
            return False
        ref = value.func.ref
        if ref is None:
            return False
        # Builtins (``dict``, ``dict.fromkeys``) resolve to nothing: match them as written.
        resolved = self.index.resolve(info.name, ref, binding.scope) or ref
        return resolved in self.settings.container_types

    # --- facts by the function that runs them ----------------------------------------------

    def runner(self, module: str, scope: str) -> str:
        """The qualname of the function whose call runs code in ``scope`` ("" for import
        time): class bodies run when their enclosing function runs."""
        while scope:
            if f"{module}.{scope}" in self.index.functions:
                return scope
            scope = scope.rpartition(".")[0]
            if scope.endswith(".<locals>"):
                scope = scope[: -len(".<locals>")]
        return ""

    def region(self, module: str, runner: str) -> _Region:
        """What ``runner`` (a function's qualname, or "" for import time) runs in
        ``module``. Import time is asked of every module; a module's functions are sorted
        into their regions in one pass, the first time one of them is asked for (only
        functions that import-time code calls are, a few of the 47 000 of the standard
        library, but a module can have hundreds of them)."""
        if not runner:
            region = self._import_regions.get(module)
            if region is None:
                region = self._import_regions[module] = self._build_import_region(module)
            return region
        regions = self._function_regions.get(module)
        if regions is None:
            regions = self._function_regions[module] = self._build_function_regions(module)
        return regions.get(runner, _NOTHING_RUNS)

    def _build_import_region(self, module: str) -> _Region:
        # TYPE_CHECKING and __main__ code never runs on import.
        return _region(*([item for item in items if item.when == "import"]
                         for items in _runnable(self.index.modules[module].facts)))

    def _build_function_regions(self, module: str) -> dict[str, _Region]:
        # Inside a function, code runs with the innermost function around it: each fact
        # goes to the region of that function, looked up once per scope.
        runner_of: dict[str, str] = {}
        groups: dict[str, tuple[list[Any], list[Any], list[Any], list[Any]]] = {}
        for kind, items in enumerate(_runnable(self.index.modules[module].facts)):
            for item in items:
                if item.when != "call":
                    continue
                runner = runner_of.get(item.scope)
                if runner is None:
                    runner = runner_of[item.scope] = self.runner(module, item.scope)
                if runner:
                    lists = groups.get(runner)
                    if lists is None:
                        lists = groups[runner] = ([], [], [], [])
                    lists[kind].append(item)
        return {runner: _region(*lists) for runner, lists in groups.items()}

    def _local_bindings(self, module: str, scope: str) -> dict[str, list[BindingFact]]:
        key = (module, scope)
        table = self._bindings.get(key)
        if table is None:
            table = {}
            for binding in self.index.modules[module].facts.bindings:
                if binding.scope == scope:
                    table.setdefault(binding.name, []).append(binding)
            self._bindings[key] = table
        return table

    def in_lambda(self, module: str, span: tuple[int, int, int, int]) -> bool:
        """Whether code at ``span`` sits in a lambda body (it runs when the lambda is called)."""
        return any(_contains(outer, span) for outer in self.index.modules[module].facts.lambdas)

    # --- classes -------------------------------------------------------------------------

    def mro(self, symbol: str) -> list[str]:
        """Project classes in (approximate) method resolution order, starting at ``symbol``."""
        if symbol not in self._mro:
            # Depth-first, bases in order; a stack rather than a recursive closure, which
            # would be a reference cycle left for a paused collector.
            order: list[str] = []
            stack = [symbol]
            while stack:
                current = stack.pop()
                if current in order or current not in self.index.classes:
                    continue
                order.append(current)
                stack.extend(base for base in reversed(self.index.class_bases(current))
                             if base is not None)
            self._mro[symbol] = order
        return self._mro[symbol]

    def is_enum(self, symbol: str) -> bool:
        return self.index.descent(symbol, _ENUM_BASES) is not None

    def is_metaclass(self, symbol: str) -> bool:
        for klass in self.mro(symbol):
            info, cls = self.index.classes[klass]
            for base, resolved in zip(cls.bases, self.index.class_bases(klass)):
                if resolved in _EXTERNAL_METACLASSES:
                    return True
                if resolved is None and base.ref == "type":
                    return True
        return False

    def _assigned_on_self(self, symbol: str) -> set[str]:
        """Attributes some method of the class assigns on ``self`` (instance state)."""
        if symbol not in self._self_assigned:
            info, cls = self.index.classes[symbol]
            prefix = cls.qualname + "."
            self._self_assigned[symbol] = {
                m.attr for m in info.facts.mutations
                if m.kind == "setattr" and m.attr and m.target.ref == "self"
                and m.scope.startswith(prefix)}
        return self._self_assigned[symbol]

    def _class_member(self, klass: str, attr: str, owner: str | None,
                      via_instance: bool) -> list[Val]:
        """``attr`` looked up on class ``klass`` (``via_instance``: on an instance of it,
        ``owner`` saying which)."""
        for each in self.mro(klass):
            member = f"{each}.{attr}"
            if member in self.index.functions:
                _, fn = self.index.functions[member]
                shared = self._is_classmethod(fn) or self._is_static(fn) or not via_instance
                return [Val("function", member, owner=None if shared else owner)]
            if member in self.index.classes:
                return [Val("class", member)]
            if member in self.registries and not (via_instance and any(
                    attr in self._assigned_on_self(k) for k in self.mro(klass))):
                # A class-level container, unless instances shadow it with their own.
                return [Val("container", member, target=self.registries[member])]
            info, cls = self.index.classes[each]
            bindings = self._local_bindings(info.name, cls.qualname).get(attr)
            if not bindings:
                continue
            if not via_instance and self.is_enum(klass):
                return [Val("instance", klass, owner=member)]  # an enum member: a singleton
            values = []
            for binding in bindings:
                value = binding.value if binding.kind in ("assign", "annassign") else None
                if value is not None:
                    for val in self.eval(value, info.name, cls.qualname):
                        if val.kind == "instance" and val.owner is None:
                            val = Val("instance", val.symbol, owner=member)
                        values.append(val)
            if values or not via_instance:
                return values
        if via_instance and owner is not None:
            return [Val("selfattr", owner=owner, attr=attr)]
        return []

    # --- functions -----------------------------------------------------------------------

    def function(self, symbol: str) -> tuple[ModuleInfo, FunctionFact]:
        return self.index.functions[symbol]

    def method_class(self, module: str, fn: FunctionFact) -> str | None:
        """The class a function is a method of (None for a plain function)."""
        klass = f"{module}.{fn.scope}"
        return klass if fn.scope and klass in self.index.classes else None

    def _decorator_symbols(self, module: str, fn: FunctionFact) -> set[str]:
        names = set()
        for decorator in fn.decorators:
            target = decorator.func if decorator.kind == "call" else decorator
            ref = target.ref if target is not None else None
            if ref:
                names.add(ref)
                resolved = self.index.resolve(module, ref, fn.scope)
                if resolved:
                    names.add(resolved)
        return names

    def _is_classmethod(self, fn: FunctionFact) -> bool:
        return fn.name in IMPLICIT_CLASSMETHODS or any(
            d.ref in ("classmethod", "builtins.classmethod") for d in fn.decorators)

    def _is_static(self, fn: FunctionFact) -> bool:
        return any(d.ref in ("staticmethod", "builtins.staticmethod") for d in fn.decorators)

    def is_dispatch(self, module: str, scope: str, dotted: str) -> bool:
        """Whether ``dotted`` is a ``functools.singledispatch`` function (so its
        ``.register`` adds an overload to that function, not to a shared registry)."""
        dispatch = self.settings.dispatch_decorators
        for val in self.eval(Expr("ref", text=dotted), module, scope):
            if val.kind == "function":
                info, fn = self.function(val.symbol)
                if self._decorator_symbols(info.name, fn) & dispatch:
                    return True
        symbol = self.index.resolve(module, dotted, scope)
        owner = self.index.project_module_of(symbol) if symbol else None
        if symbol and owner and symbol != owner:
            scope_name, _, name = symbol[len(owner) + 1:].rpartition(".")
            for binding in self._local_bindings(owner, scope_name).get(name, ()):
                value = binding.value
                if value is not None and value.kind == "call" and value.func is not None:
                    callee = value.func.ref
                    resolved = self.index.resolve(owner, callee, scope_name) if callee else None
                    if resolved in dispatch:
                        return True
        return False

    # --- evaluation ------------------------------------------------------------------------

    def eval(self, expr: Expr | None, module: str, scope: str, depth: int = 0) -> list[Val]:
        """What ``expr`` (in ``scope`` of ``module``) may evaluate to."""
        if expr is None:
            return []
        if depth > self.settings.max_depth * 2:
            self._cut_short += 1
            return []
        # Keyed by content and place, never id(): synthetic expressions come and go.
        key = (module, scope, expr.kind, expr.text, expr.span)
        if key in self._values:
            return self._values[key]
        if key in self._evaluating:
            self._cut_short += 1
            return []  # a recursive definition; its other branches still count
        self._evaluating.add(key)
        cut_before = self._cut_short
        try:
            values: list[Val] = []
            if expr.kind == "ref":
                values = self._eval_ref(expr.text, module, scope, depth)
            elif expr.kind == "call":
                values = self._eval_call(expr, module, scope, depth)
            elif expr.kind == "sub":
                values = [v for v in self.eval(expr.func, module, scope, depth + 1)
                          if v.kind == "class"]
        finally:
            self._evaluating.discard(key)
        # A value cut short (by the depth limit, or by a definition that refers back to
        # itself) depends on where the evaluation started: kept, it would make a module's
        # answer depend on which modules were asked about before it.
        if self._cut_short == cut_before:
            self._values[key] = values
        return values

    def _eval_call(self, expr: Expr, module: str, scope: str, depth: int) -> list[Val]:
        callees = self.eval(expr.func, module, scope, depth + 1)
        values = self._results(callees, depth)
        if expr.items and any(c.kind == "external" and c.symbol == "functools.partial"
                              for c in callees):
            values += self.eval(expr.items[0], module, scope, depth + 1)
        return values

    def _results(self, callees: list[Val], depth: int) -> list[Val]:
        """What calling each of ``callees`` returns."""
        values: list[Val] = []
        for callee in callees:
            if callee.kind == "class":
                values.append(Val("instance", callee.symbol))
            elif callee.kind == "function":
                info, fn = self.function(callee.symbol)
                for returned in fn.returns:
                    values.extend(self.eval(returned, info.name, fn.qualname, depth + 1))
        return values

    def _eval_ref(self, dotted: str, module: str, scope: str, depth: int) -> list[Val]:
        """A dotted name; a part written ``f()`` (an argument-less call link, as in
        ``get_registry().add``) stands for what calling it returns."""
        head, _, rest = dotted.partition(".")
        if head == "super()":
            values = self._super(module, scope, rest.partition(".")[0])
            rest = rest.partition(".")[2]
        elif head.endswith("()"):
            values = self._results(self._eval_name(head[:-2], module, scope, depth), depth)
        else:
            values = self._eval_name(head, module, scope, depth)
        for attr in rest.split(".") if rest else ():
            if attr.endswith("()"):
                found = [v for value in values for v in self._attr(value, attr[:-2])]
                values = self._results(found, depth)
            else:
                values = [v for value in values for v in self._attr(value, attr)]
            if not values:
                break
        return values

    def _enclosing_functions(self, module: str, scope: str) -> Iterator[FunctionFact]:
        current = self.runner(module, scope)
        while current:
            _, fn = self.function(f"{module}.{current}")
            yield fn
            current = self.runner(module, fn.scope)

    def _eval_name(self, name: str, module: str, scope: str, depth: int) -> list[Val]:
        for fn in self._enclosing_functions(module, scope):
            if name not in fn.local_names:
                continue
            parameters = (*fn.params, fn.vararg, fn.kwarg)
            if name in parameters:
                return self._parameter(module, fn, name)
            symbol = self.index.resolve(module, name, fn.qualname)
            local_prefix = f"{module}.{fn.qualname}."
            if symbol is not None and not symbol.startswith(local_prefix):
                return self._classify(symbol)  # a local alias of something shared
            if symbol in self.index.functions or symbol in self.index.classes:
                return self._classify(symbol)
            values: list[Val] = []
            for binding in self._local_bindings(module, fn.qualname).get(name, ()):
                value = binding.value if binding.kind in ("assign", "annassign", "walrus") else None
                if value is not None:
                    values.extend(self.eval(value, module, fn.qualname, depth + 1))
            return values
        symbol = self.index.resolve(module, name, scope)
        if symbol is None:
            return []  # a builtin, or a name the index cannot see
        return self._classify(symbol, depth)

    def _parameter(self, module: str, fn: FunctionFact, name: str) -> list[Val]:
        klass = self.method_class(module, fn)
        if klass is None or not fn.params or name != fn.params[0] or self._is_static(fn):
            return []
        if self._is_classmethod(fn):
            return [Val("class", klass)]
        if self.is_metaclass(klass):
            return [Val("instance", klass)]  # the class being created: not shared state
        return [Val("instance", klass, owner=SELF)]

    def _super(self, module: str, scope: str, attr: str) -> list[Val]:
        for fn in self._enclosing_functions(module, scope):
            klass = self.method_class(module, fn)
            if klass is None:
                continue
            owner = None if self._is_classmethod(fn) else SELF
            for each in self.mro(klass)[1:]:
                member = f"{each}.{attr}"
                if member in self.index.functions:
                    _, method = self.function(member)
                    return [Val("function", member,
                                owner=None if self._is_classmethod(method) else owner)]
            return []
        return []

    def _classify(self, symbol: str, depth: int = 0) -> list[Val]:
        index = self.index
        if symbol in index.modules:
            return [Val("module", symbol)]
        if symbol in index.classes:
            return [Val("class", symbol)]
        if symbol in index.functions:
            return [Val("function", symbol)]
        if symbol in self.registries:
            return [Val("container", symbol, target=self.registries[symbol])]
        module = index.project_module_of(symbol)
        if module is None:
            return [Val("external", symbol)]
        rest = symbol[len(module) + 1:]
        if "." in rest:
            head, _, attr = rest.rpartition(".")
            values = self._classify(f"{module}.{head}", depth + 1)
            return [found for value in values for found in self._attr(value, attr)]
        values = []
        for binding in self._local_bindings(module, "").get(rest, ()):
            value = binding.value if binding.kind in ("assign", "annassign") else None
            if value is None:
                continue
            for val in self.eval(value, module, "", depth + 1):
                if val.kind == "instance" and val.owner is None:
                    val = Val("instance", val.symbol, owner=symbol)  # a module-level object
                values.append(val)
        return values

    def _attr(self, value: Val, attr: str) -> list[Val]:
        if value.kind == "module":
            submodule = f"{value.symbol}.{attr}"
            if submodule in self.index.modules:
                return [Val("module", submodule)]
            symbol = self.index.resolve(value.symbol, attr)
            return self._classify(symbol) if symbol else []
        if value.kind == "class":
            return self._class_member(value.symbol, attr, None, via_instance=False)
        if value.kind == "instance":
            return self._class_member(value.symbol, attr, value.owner, via_instance=True)
        if value.kind == "external":
            return [Val("external", f"{value.symbol}.{attr}")]
        if value.kind == "selfattr":
            return [Val("selfattr", owner=value.owner, attr=f"{value.attr}.{attr}")]
        return []

    # --- effects -----------------------------------------------------------------------------

    def store(self, target: Val, verb: str) -> Effect | None:
        """The effect of mutating what ``target`` evaluates to (None if not shared)."""
        if target.kind == "container" and target.target is not None:
            return Effect(verb, target.target)
        if target.kind == "selfattr" and target.owner == SELF:
            return Effect(verb, None, self_attr=target.attr)
        if target.kind == "selfattr" and target.owner is not None:
            return Effect(verb, self.owned(target.owner, target.attr))
        return None

    def owned(self, owner: str, attr: str) -> Target:
        """The container ``attr`` of the shared object ``owner`` (a module-level instance
        or an enum member)."""
        module = self.index.project_module_of(owner) or owner
        name = owner[len(module) + 1:]
        binding_line = 0
        scope, _, bare = name.rpartition(".")
        for binding in self._local_bindings(module, scope).get(bare, ()):
            binding_line = binding.span[0]
            break
        info = self.index.modules.get(module)
        return Target(f"{name}.{attr}", f"{owner}.{attr}", module,
                      info.path if info else None, binding_line)

    def summary(self, symbol: str, depth: int = 1) -> tuple[Effect, ...]:
        """What calling the project function ``symbol`` mutates, each effect's chain
        starting with the function itself."""
        if depth > self.settings.max_depth:
            return ()
        key = (symbol, depth)
        if key in self._summaries:
            return self._summaries[key]
        self._summaries[key] = ()  # recursion: the cycle adds nothing new
        info, fn = self.function(symbol)
        hop = Hop(fn.qualname.replace(".<locals>", ""), info.path, fn.span[0])
        effects = [e.via(hop) for site in self.sites(info.name, fn.qualname, depth)
                   for e in site.effects]
        result = tuple(sorted(set(effects), key=Effect.sort_key))
        self._summaries[key] = result
        return result

    def invoke(self, callee: Val, depth: int) -> list[Effect]:
        """What calling ``callee`` mutates."""
        if callee.kind == "function":
            found = []
            for effect in self.summary(callee.symbol, depth + 1):
                if effect.target is not None:
                    found.append(effect)
                elif callee.owner == SELF:
                    found.append(effect)
                elif callee.owner is not None:
                    found.append(Effect(effect.verb, self.owned(callee.owner, effect.self_attr),
                                        effect.chain))
            return found
        if callee.kind == "class":
            found = []
            for name in CONSTRUCTION_METHODS:
                for val in self._class_member(callee.symbol, name, None, via_instance=False):
                    if val.kind == "function":
                        found += [e for e in self.summary(val.symbol, depth + 1)
                                  if e.target is not None]
            return found
        if callee.kind == "external" and callee.symbol in self.settings.registration_callables:
            return [Effect("calls", Target(callee.symbol, callee.symbol, None))]
        return []

    def call_effects(self, func: Expr | None, module: str, scope: str,
                     depth: int) -> list[Effect]:
        """What a call of ``func`` (the expression called) mutates: the arguments do not
        matter, so a stored call is not built for them (see CallFact.callee)."""
        receiver, method = _method_call(func)
        if receiver is not None and method in self.settings.mutating_methods:
            stores = [self.store(v, verb_for(method))
                      for v in self.eval(receiver, module, scope, depth)]
            found = [s for s in stores if s is not None]
            if found:
                return found
        return [e for callee in self.eval(func, module, scope, depth)
                for e in self.invoke(callee, depth)]

    def decorator_effects(self, decorator: Expr, module: str, scope: str,
                          depth: int) -> list[Effect]:
        """What applying ``decorator`` mutates: the factory call (for ``@f(...)``) and the
        call of the decorator it yields."""
        callee = decorator.func if decorator.kind == "call" else decorator
        dotted = callee.ref if callee is not None else None
        if dotted and dotted.endswith(".register") and self.is_dispatch(
                module, scope, dotted.rpartition(".")[0]):
            return []
        effects: list[Effect] = []
        if decorator.kind == "call":
            effects += self.call_effects(decorator.func, module, scope, depth)
        values = self.eval(decorator, module, scope, depth)
        for value in values:
            effects += self.invoke(value, depth)
        if dotted and not effects and not any(v.kind in ("function", "class", "instance")
                                              for v in self.eval(callee, module, scope, depth)):
            resolved = self.index.resolve(module, dotted, scope) or dotted
            for pattern in self.settings.registration_decorators:
                if fnmatchcase(dotted, pattern) or fnmatchcase(resolved, pattern):
                    effects.append(Effect("calls", Target(dotted, resolved, None),
                                          pattern=pattern))
                    break
        return effects

    def _fills_cache(self, module: str, runner: str, mutation: MutationFact) -> bool:
        """Whether a store is a lazily filled memo: the function looks the key up in the
        same container (``X.get(k)``, ``return X[k]``) and returns what it stores, which it
        computed itself (a decorator storing its argument is registering it)."""
        if not runner or mutation.kind != "setitem":
            return False
        container = _through_subscripts(mutation.target).ref
        if container is None:
            return False
        _, fn = self.function(f"{module}.{runner}")
        returns_lookup = any(_through_subscripts(r).ref == container for r in fn.returns
                             if r.kind == "sub")
        looked_up = returns_lookup or any(
            c.func == f"{container}.get" for c in self.region(module, runner).calls)
        if not looked_up:
            return False
        stored = mutation.value.ref if mutation.value is not None else None
        parameters = {*fn.params, fn.vararg, fn.kwarg}
        return returns_lookup or (stored is not None and stored not in parameters
                                  and any(r.ref == stored for r in fn.returns))

    def sites(self, module: str, runner: str, depth: int = 0) -> Iterator[Site]:
        """The code ``runner`` runs ("" for the module's import-time code), one site per
        call, store or decoration, with what each mutates."""
        region = self.region(module, runner)
        decorator_spans = set()
        for definition in region.decorated:
            for decorator in definition.decorators:
                decorator_spans.add(decorator.span)
                subject = decorator.func if decorator.kind == "call" else decorator
                name = subject.ref if subject is not None and subject.ref else "decorator"
                yield Site("decorator", decorator.span, f"@{name}", definition.qualname,
                           self.decorator_effects(decorator, module, definition.scope, depth))
        for call in region.calls:
            if call.span in decorator_spans or self.in_lambda(module, call.span):
                continue
            name = call.func or "call"
            effects = self.call_effects(call.callee, module, call.scope, depth)
            yield Site("call", call.span, f"{name}()", call.scope, effects)
        for mutation in region.mutations:
            if mutation.kind not in ("setitem", "delitem", "augitem", "augattr"):
                continue
            if self.in_lambda(module, mutation.span) or self._fills_cache(module, runner, mutation):
                continue
            target = mutation.target
            if mutation.kind == "augattr":
                ref = target.ref
                targets = self._eval_ref(f"{ref}.{mutation.attr}", module, mutation.scope,
                                         depth) if ref else []
            else:
                targets = self.eval(_through_subscripts(target), module, mutation.scope, depth)
            stores = [self.store(v, verb_for(mutation.kind, mutation.operator))
                      for v in targets]
            name = _display(target) + ("[...]" if mutation.kind != "augattr" else
                                       f".{mutation.attr}")
            yield Site("mutation", mutation.span, name, mutation.scope,
                       [s for s in stores if s is not None])
        for binding in region.augassigns:
            if runner:
                _, fn = self.function(f"{module}.{runner}")
                if binding.name not in fn.global_names:
                    continue
                # The module's global, which may be a name it imported.
                targets = self._eval_name(binding.name, module, "", depth)
            else:
                targets = self._eval_name(binding.name, module, binding.scope, depth)
            stores = [self.store(v, verb_for("augassign", binding.operator)) for v in targets]
            subject = f"{binding.name} {binding.operator or '+='}"
            yield Site("mutation", binding.span, subject, binding.scope,
                       [s for s in stores if s is not None])


def _method_call(func: Expr | None) -> tuple[Expr | None, str]:
    """The receiver and method of ``a.b.m`` or ``a[k].m`` (the receiver looked at
    through subscripts: storing into ``a[k]`` mutates ``a``)."""
    if func is None:
        return None, ""
    if func.kind == "ref" and "." in func.text and not func.text.endswith("()"):
        receiver, _, method = func.text.rpartition(".")
        return Expr("ref", span=func.span, text=receiver), method
    if func.kind == "attr" and func.func is not None:
        return _through_subscripts(func.func), func.text
    return None, ""


def _through_subscripts(expr: Expr) -> Expr:
    while expr.kind == "sub" and expr.func is not None:
        expr = expr.func
    return expr


def _display(expr: Expr) -> str:
    expr = _through_subscripts(expr)
    return expr.ref or "expression"


def _contains(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (inner[2], inner[3]) <= (outer[2], outer[3])


def unique(effects: Iterable[Effect]) -> list[Effect]:
    return sorted(set(effects), key=Effect.sort_key)
