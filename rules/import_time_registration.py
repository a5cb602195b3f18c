"""LL003 import-time-registration: importing a module must not mutate a shared registry."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from fnmatch import fnmatchcase

from pydantic import Field

from lintkit import Diagnostic, Expect, Invalid, Location, Project, Related, Rule, RuleOptions, Valid
from lintkit.core.facts import ClassFact, FunctionFact
from lintkit.core.index import ModuleInfo

from ._import_effects import Effect, Effects, Settings, Site, unique

SUBCLASS_HOOKS = ("__init_subclass__", "__pydantic_init_subclass__")
METACLASS_HOOKS = ("__new__", "__init__")  # not __call__: that runs at instantiation
DESCRIPTOR_HOOK = "__set_name__"

_REGISTRY = '''
_ROUTES = []


def route(path):
    def decorator(fn):
        _ROUTES.append((path, fn))
        return fn
    return decorator
'''


class Options(RuleOptions):
    container_types: tuple[str, ...] = (
        "dict", "list", "set", "dict.fromkeys", "collections.defaultdict",
        "collections.OrderedDict", "collections.deque", "collections.Counter",
        "collections.ChainMap", "weakref.WeakValueDictionary", "weakref.WeakKeyDictionary",
        "weakref.WeakSet",
    )
    mutating_methods: tuple[str, ...] = (
        "append", "appendleft", "add", "clear", "discard", "extend", "extendleft", "insert",
        "pop", "popitem", "remove", "setdefault", "update", "__setitem__", "__delitem__",
    )
    registration_callables: tuple[str, ...] = (
        "atexit.register", "codecs.register", "copyreg.pickle", "mimetypes.add_type",
        "sqlite3.register_adapter", "sqlite3.register_converter",
    )
    registration_decorators: tuple[str, ...] = ("*.register", "*.tool", "*.route")
    dispatch_decorators: tuple[str, ...] = (
        "functools.singledispatch", "functools.singledispatchmethod",
    )
    composition_roots: tuple[str, ...] = ("__main__.py", "conftest.py")
    cache_names: tuple[str, ...] = ("*cache*", "*memo*")
    max_depth: int = Field(6, ge=1, le=20)


class ImportTimeRegistration(Rule):
    """Importing a module must not register anything in a registry other modules see.

    ## What it does
    Models what executing each module runs: its top-level statements (including those in
    module-level `if`/`try`/`with`/`for`), class bodies, decorator expressions and the
    decorator calls they imply, default values, base expressions, and the bodies of the
    project functions that code calls, followed across modules (to `max-depth` calls). It
    reports that code when it mutates a shared container of another module:

    - a module-level or class-level dict/list/set (a literal, a comprehension or a
      constructor such as `defaultdict()`), through item assignment, `del`, augmented
      assignment or a mutating method (`append`, `add`, `update`, `setdefault`, ...);
    - a container held by a module-level object or an enum member, through a method of it
      (`registry.register(x)` whose body does `self._items[k] = x`);
    - a call of, or decoration with, a configured third-party registration callable
      (`atexit.register`) or, where the index cannot see the decorator's code, a decorator
      matching `registration-decorators` (`@app.route(...)`, `@mcp.tool`).

    A base class's class-creation hook (`__init_subclass__`, `__pydantic_init_subclass__`,
    a metaclass's `__new__`/`__init__`, a descriptor's `__set_name__`) that does so is
    reported at the hook, with how many classes in the project trigger it.

    Not reported: decorators that only tag the object they get, hooks that write only to
    `cls`, lazily filled caches (containers named like `cache-names`, or stores by a
    function that looks the key up in the same container and returns what it stored),
    registries a function builds and returns, `functools.singledispatch` `.register`, a
    module filling its own containers, code in lambdas, `if __name__ == "__main__":` and
    `TYPE_CHECKING` code, and composition roots (`composition-roots`: `__main__.py` and
    `conftest.py` by default).

    ## Why it matters
    ADR-0119 D6: a declaration module exports values; it does not mutate the active
    registry when imported. When importing registers, what a registry holds depends on which
    optional modules happened to be imported, and in what order; tests leak into each other,
    a module reload registers twice, and an SDK install that skips a feature silently loses
    its entries. A composition root that names what it composes has none of these problems.

    ## Example
    ```python
    # studio/services/ops.py
    from studio.registry import studio_route

    @studio_route("/ops")          # appends to studio.registry._ROUTES on import: LL003
    def ops(request): ...
    ```

    ## How to fix
    Let the decorator only tag the function (`fn.__route__ = path; return fn`), export the
    declarations, and collect them where the application is put together:
    `ROUTES = build_routes(ops, health, ...)`, like `build_default_registry()` in LionAGI's
    `state/lifecycle/policy.py`. A module that really is a composition root can be listed in
    `composition-roots`; a single deliberate registration can be waived with
    `# lion-lint: ignore[LL003] -- reason`.
    """

    code = "LL003"
    name = "import-time-registration"
    summary = "Importing a module must not mutate a registry other modules see"
    Options = Options

    valid = (
        Valid({"pkg/registry.py": (
            "def route(path):\n"
            "    def decorator(fn):\n"
            "        fn.__route__ = path\n"
            "        return fn\n"
            "    return decorator\n"
        ), "pkg/ops.py": (
            "from pkg.registry import route\n\n"
            "@route('/ops')\n"
            "def ops():\n"
            "    pass\n"
        )}, name="a decorator that only tags"),
        Valid({"pkg/registry.py": (
            "class Registry:\n"
            "    def __init__(self):\n"
            "        self._items = {}\n\n"
            "    def register(self, name, item):\n"
            "        self._items[name] = item\n\n\n"
            "def build_default_registry():\n"
            "    registry = Registry()\n"
            "    registry.register('a', 1)\n"
            "    return registry\n"
        ), "pkg/app.py": (
            "from pkg.registry import build_default_registry\n\n"
            "DEFAULT_REGISTRY = build_default_registry()\n"
        )}, name="explicit composition"),
        Valid({"pkg/registry.py": _REGISTRY, "pkg/__main__.py": (
            "from pkg.registry import route\n\n"
            "@route('/main')\n"
            "def main():\n"
            "    pass\n"
        )}, name="a composition root"),
    )
    invalid = (
        Invalid({"pkg/registry.py": _REGISTRY, "pkg/ops.py": (
            "from pkg.registry import route\n\n"
            "@route('/ops')\n"
            "def ops():\n"
            "    pass\n"
        )}, expect=(Expect(3, "LL003", 1, "@route registers at import time: appends to "
                                          "_ROUTES (pkg/registry.py:2) via route.decorator"),),
            name="a decorator factory of another module"),
        Invalid({"pkg/registry.py": "HANDLERS = {}\n", "pkg/ops.py": (
            "from pkg import registry\n\n"
            "if True:\n"
            "    registry.HANDLERS['ops'] = print\n"
        )}, expect=(Expect(4, "LL003", 5, "sets an item of HANDLERS"),),
            name="item assignment in a module-level if"),
        Invalid({"pkg/base.py": (
            "REGISTRY = {}\n\n\n"
            "class Plugin:\n"
            "    def __init_subclass__(cls, **kwargs):\n"
            "        super().__init_subclass__(**kwargs)\n"
            "        REGISTRY[cls.__name__] = cls\n"
        ), "pkg/plugins.py": (
            "from pkg.base import Plugin\n\n\n"
            "class A(Plugin):\n"
            "    pass\n"
        )}, expect=(Expect(5, "LL003", 9, "1 project class triggers it"),),
            name="a class-creation hook"),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        options = self.options
        model = Effects(project.index, Settings(
            container_types=frozenset(options.container_types),
            mutating_methods=frozenset(options.mutating_methods),
            registration_callables=frozenset(options.registration_callables),
            registration_decorators=tuple(options.registration_decorators),
            dispatch_decorators=frozenset(options.dispatch_decorators),
            cache_names=tuple(options.cache_names),
            max_depth=options.max_depth,
        ))
        for info in sorted(project.index.by_path.values(), key=lambda i: i.path):
            if (not project.reports(info.path) or info.facts.error is not None
                    or self._is_composition_root(info.path)):
                continue  # what a module's import runs is reported in that module
            if project.index.modules.get(info.name) is not info:
                continue  # a stray second copy of a module: the index ignores it too
            for site in model.sites(info.name, ""):
                effects = [e for e in unique(site.effects)
                           if e.target is not None and e.target.module != info.name]
                if effects:
                    yield self._import_time(project, info, site, effects)
            yield from self._hooks(project, model, info)

    def _is_composition_root(self, path: str) -> bool:
        name = path.rpartition("/")[2]
        return any(fnmatchcase(path if "/" in pattern else name, pattern)
                   for pattern in self.options.composition_roots)

    # --- import-time code --------------------------------------------------------------

    def _import_time(self, project: Project, info: ModuleInfo, site: Site,
                     effects: list[Effect]) -> Diagnostic:
        span = site.span
        if site.kind == "decorator":
            span = _with_at_sign(project.source_lines(info.path), span)
        first = effects[0]
        message = f"{site.subject} registers at import time: {_describe(first)}"
        scope = f"{info.name}.{site.scope}" if site.scope else info.name
        return self.diagnostic(info.path, span, message, scope=scope,
                               related=_related(first),
                               detail=[f"also {_describe(e)}" for e in effects[1:]])

    # --- class-creation hooks ------------------------------------------------------------

    def _hooks(self, project: Project, model: Effects, info: ModuleInfo) -> Iterator[Diagnostic]:
        index = project.index
        classes = {c.qualname: c for c in info.facts.classes if c.when in ("import", "call")}
        for fn in info.facts.functions:
            cls = classes.get(fn.scope)
            if cls is None:
                continue
            symbol = f"{info.name}.{cls.qualname}"
            if fn.name in SUBCLASS_HOOKS:
                hook, what, noun = "subclass", "every subclass", "project class"
            elif fn.name in METACLASS_HOOKS and model.is_metaclass(symbol):
                hook, what, noun = "metaclass", "every class it creates", "project class"
            elif fn.name == DESCRIPTOR_HOOK:
                hook, what, noun = ("descriptor", "each class attribute it is assigned to",
                                    "class attribute")
            else:
                continue
            targeted = [e for e in model.summary(f"{info.name}.{fn.qualname}")
                        if e.target is not None]
            if not targeted:
                continue  # it mutates no registry: what triggers it need not be looked for
            triggers = _triggers(hook, project, model, symbol)
            owners = {index.project_module_of(t) for t in triggers}
            effects = []
            for effect in targeted:
                target = effect.target
                if triggers and target.module is not None and owners == {target.module}:
                    continue  # only the registry's own module triggers it: construction
                effects.append(Effect(effect.verb, target, effect.chain[1:], "", effect.pattern))
            if effects:
                yield self._hook(info, cls, fn, unique(effects), what, noun, len(triggers))

    def _hook(self, info: ModuleInfo, cls: ClassFact, fn: FunctionFact, effects: list[Effect],
              what: str, noun: str, count: int) -> Diagnostic:
        first = effects[0]
        if count:
            plural = "es" if noun.endswith("ss") else "s"
            triggered = (f"{count} {noun}{plural if count != 1 else ''} "
                         f"trigger{'s' if count == 1 else ''} it")
        else:
            triggered = f"no {noun} triggers it yet"
        message = (f"{cls.qualname}.{fn.name} registers {what} at class creation: "
                   f"{_describe(first)}; {triggered}")
        return self.diagnostic(info.path, fn.span, message, scope=f"{info.name}.{fn.qualname}",
                               related=_related(first),
                               detail=[f"also {_describe(e)}" for e in effects[1:]])


def _describe(effect: Effect) -> str:
    target = effect.target
    assert target is not None
    if effect.pattern:
        text = f"{target.name} matches the registration-decorators pattern '{effect.pattern}'"
    elif target.module is None:
        text = f"calls {target.name} (a registration-callables entry)"
    else:
        text = f"{effect.verb} {target.name} ({target.where})"
    if effect.chain:
        text += " via " + " -> ".join(f"{h.name} ({h.path}:{h.line})" for h in effect.chain)
    return text


def _related(effect: Effect) -> list[Related]:
    target = effect.target
    related = []
    if target is not None and target.path and target.line:
        related.append(Related(Location(target.path, target.line, 1, target.line, 1),
                               f"{target.name} is defined here"))
    for hop in effect.chain:
        related.append(Related(Location(hop.path, hop.line, 1, hop.line, 1),
                               f"{hop.name} runs here"))
    return related


def _with_at_sign(lines: list[str], span: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """Start a decorator's span at its ``@``, as the source shows it."""
    line, column, end_line, end_column = span
    if 0 < line <= len(lines):
        before = lines[line - 1][: column - 1]
        stripped = before.rstrip()
        if stripped.endswith("@"):
            return (line, len(stripped), end_line, end_column)
    return span


def _triggers(hook: str, project: Project, model: Effects, symbol: str) -> list[str]:
    """What runs the class-creation hook of ``symbol``: its subclasses, the classes it
    creates (a metaclass) or the class attributes it is assigned to (a descriptor)."""
    if hook == "subclass":
        return sorted(project.index.subclasses_of({symbol}))
    if hook == "metaclass":
        return _metaclass_users(project, symbol)
    return _descriptor_uses(project, model, symbol)


def _metaclass_users(project: Project, metaclass: str) -> list[str]:
    index = project.index
    direct = set()
    for symbol, (info, cls) in index.classes.items():
        for key, value in cls.keywords:
            if key != "metaclass":
                continue
            resolved = index.resolve_expr(info.name, value, cls.scope)
            if resolved == metaclass or (resolved in index.classes
                                         and index.descent(resolved, {metaclass})):
                direct.add(symbol)
    return sorted(direct | set(index.subclasses_of(direct))) if direct else []


def _descriptor_uses(project: Project, model: Effects, descriptor: str) -> list[str]:
    index = project.index
    uses = []
    for info in index.by_path.values():
        for binding in info.facts.bindings:
            if not binding.scope or f"{info.name}.{binding.scope}" not in index.classes:
                continue
            value = binding.value
            if value is None or value.kind != "call":
                continue
            for val in model.eval(value.func, info.name, binding.scope):
                if val.kind == "class" and (val.symbol == descriptor
                                            or index.descent(val.symbol, {descriptor})):
                    uses.append(f"{info.name}.{binding.scope}.{binding.name}")
                    break
    return sorted(uses)
