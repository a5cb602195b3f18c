"""LL002 sentinel-inventory: the legacy sentinel flags are set only from a closed inventory."""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from lintkit import (
    Diagnostic,
    Edit,
    Expect,
    Fix,
    Invalid,
    Location,
    Project,
    Related,
    Rule,
    RuleOptions,
    Valid,
)
from lintkit.core.facts import CallFact, Expr, MutationFact
from lintkit.core.index import ModuleInfo, ProjectIndex

Span = tuple[int, int, int, int]
_BUILTINS = frozenset(dir(builtins))
_CONTAINER_BUILTINS = ("frozenset", "set", "tuple", "list")

_SENTINEL = '''\
from dataclasses import dataclass
from typing import Final

ALLOW: Final = frozenset({("pkg.models.Legacy._config", "none")})


@dataclass(frozen=True)
class ModelConfig:
    none_as_sentinel: bool = False
    empty_as_sentinel: bool = False


def _compat_is_sentinel(value, *, site, none_as_sentinel=False, empty_as_sentinel=False):
    return value is None


def is_sentinel(value, *, none_as_sentinel=False, empty_as_sentinel=False):
    return value is None
'''
_EXAMPLE_OPTIONS = {
    "constant": "pkg._sentinel.ALLOW",
    "config-classes": ["pkg._sentinel.ModelConfig"],
    "gateways": ["pkg._sentinel._compat_is_sentinel"],
    "public-helpers": ["pkg._sentinel.is_sentinel"],
    "mechanism-modules": ["pkg._sentinel"],
    "dynamic-sites": [],
}


def _example(models: str) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/_sentinel.py": _SENTINEL, "pkg/models.py": models}


class Options(RuleOptions):
    constant: str = "lionagi.ln.types._sentinel.LEGACY_SENTINEL_COLLAPSE_ALLOWLIST"
    #: Flag name -> axis. The order is the flags' positional order: from the first argument
    #: of a config class, and after the value of a gateway or public helper.
    flags: dict[str, str] = {"none_as_sentinel": "none", "empty_as_sentinel": "empty"}
    config_classes: tuple[str, ...] = ("lionagi.ln.types.base.ModelConfig",)
    config_attribute: str = "_config"
    gateways: tuple[str, ...] = (
        "lionagi.ln.types._sentinel._compat_is_sentinel",
        "lionagi.ln.types._sentinel._compat_not_sentinel",
        "lionagi.ln.types._sentinel._compat_policy",
    )
    site_keyword: str = "site"
    public_helpers: tuple[str, ...] = (
        "lionagi.ln.types._sentinel.is_sentinel",
        "lionagi.ln.types._sentinel.not_sentinel",
    )
    mechanism_modules: tuple[str, ...] = ("lionagi.ln.types._sentinel", "lionagi.ln.types.base")
    dynamic_sites: tuple[str, ...] = ("lionagi.models.note._strip_sentinels",)
    replace_functions: tuple[str, ...] = ("dataclasses.replace", "copy.replace")
    partial_functions: tuple[str, ...] = ("functools.partial",)
    setattr_functions: tuple[str, ...] = ("builtins.setattr", "builtins.object.__setattr__")
    #: Files that exercise the runtime gate on purpose (globs; without a "/" they match the
    #: file name): neither sites nor reported, as LionAGI's own gate covers the package only.
    test_files: tuple[str, ...] = ("tests/*", "*/tests/*", "test_*.py", "*_test.py",
                                   "conftest.py")


class SentinelInventory(Rule):
    """The legacy sentinel flags are set only from the sites the inventory constant names.

    ## What it does
    Finds every place in the project that sets a legacy sentinel flag (`none_as_sentinel`,
    `empty_as_sentinel`) and requires the discovered inventory of `(site, axis)` pairs to
    equal the inventory constant (by default LionAGI's
    `LEGACY_SENTINEL_COLLAPSE_ALLOWLIST`). A site is either

    - a class whose body declares `_config = ModelConfig(...)` with a flag set to a truthy
      literal; its site is `<module>.<class __qualname__>._config` (subclasses inherit the
      config; only the declaring class is a site), or
    - a private gateway call, `_compat_is_sentinel(value, site="...", ...)`, whose `site=`
      must be a string literal naming its lexical owner: the module and the enclosing
      classes and functions (`pkg.mod.Class.method`; lambdas and comprehensions are
      transparent).

    It reports a site setting an axis the constant does not list, an entry of the constant
    that no site sets any more, a gateway call whose `site=` is missing, computed or wrong, a
    flag passed as a computed value or through `**kwargs` (outside the configured dynamic
    sites), any flag passed to the public `is_sentinel`/`not_sentinel` (by keyword, by
    position or through `functools.partial`), and a flag set anywhere else: a config built
    outside a class-body `_config`, `dataclasses.replace(cfg, none_as_sentinel=True)`,
    `setattr`/`object.__setattr__` with a flag name, or `SomeClass._config = ...` outside
    that class's body. Names resolve through imports, aliases and re-exports. `False` and
    omitted flags are not sites. The modules that implement the mechanism may forward flags
    as variables; a literal `True` there is still a site. Test files (`tests/`, `test_*.py`)
    may set flags to exercise the runtime gate and are left out.

    ## Why it matters
    ADR-0119 D1: `Undefined`, `Unset` and `None` mean one thing everywhere. The two legacy
    flags collapse `None` or empty values into "absent" and survive only for a closed,
    enumerated list of compatibility sites, kept beside the flags as a module-level
    constant. Without an exact gate the carve-out grows by usage and the three-state rule
    becomes advisory exactly where the contracts were loosest. The gate is also what keeps
    the constant honest: an entry whose site is gone is a standing permission nobody uses.

    ## Example
    ```python
    from lionagi.ln.types import ModelConfig, Params

    class ChatParams(Params):
        _config = ModelConfig(none_as_sentinel=True)   # not in the inventory: LL002
    ```

    ## How to fix
    First ask whether the site needs the legacy collapse at all: new code must not set the
    flags; compare with `is None` or handle empty values explicitly. If a compatibility
    adapter really must keep its old contract, add the site to the constant, beside the
    flags, in the same change:

    ```python
    LEGACY_SENTINEL_COLLAPSE_ALLOWLIST: Final = frozenset({
        ...,
        ("lionagi.chat.params.ChatParams._config", "none"),
    })
    ```

    That edit is a contract change and is reviewed as one (ADR-0119 D1): say in the change
    why the adapter needs it and when it can go. For a direct adapter call the gateway with
    its own lexical owner, `_compat_is_sentinel(v, site="pkg.mod.Class.method",
    none_as_sentinel=True)` (`lion-lint --fix` corrects a wrong `site=`), never the public
    helpers. Delete an entry as soon as its site stops setting the flag.
    """

    code = "LL002"
    name = "sentinel-inventory"
    summary = "none_as_sentinel/empty_as_sentinel are set only from sites the inventory constant names"
    Options = Options

    valid = (
        Valid(_example(
            "from pkg._sentinel import ModelConfig\n\n"
            "class Legacy:\n"
            "    _config = ModelConfig(none_as_sentinel=True)\n\n"
            "class Modern:\n"
            "    _config = ModelConfig(none_as_sentinel=False)\n"
        ), options=_EXAMPLE_OPTIONS, name="inventory equals the constant"),
        Valid(_example(
            "from pkg._sentinel import ModelConfig\n\n"
            "class Legacy:\n"
            "    _config = ModelConfig(none_as_sentinel=True)\n\n"
            "def strip(value, none_as_sentinel=False):\n"
            "    return strip(value, none_as_sentinel=True)\n"
        ), options=_EXAMPLE_OPTIONS, name="a flag-named keyword of an unrelated function"),
    )
    invalid = (
        Invalid(_example(
            "from pkg._sentinel import ModelConfig as MC\n\n"
            "class Legacy:\n"
            "    _config = MC(none_as_sentinel=True, empty_as_sentinel=True)\n"
        ), expect=(Expect(4, "LL002", 59, "('pkg.models.Legacy._config', 'empty') is not in"),),
            options=_EXAMPLE_OPTIONS, name="axis missing from the constant"),
        Invalid(_example(
            "from pkg._sentinel import _compat_is_sentinel\n\n"
            "class Legacy:\n"
            "    def keep(self, v):\n"
            "        return _compat_is_sentinel(v, site='pkg.models.Legacy.kept')\n"
        ), expect=(Expect(4, "LL002", None, "stale entry"),
                   Expect(5, "LL002", 44, "does not match its lexical owner")),
            options=_EXAMPLE_OPTIONS, name="wrong site and stale entry"),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        index = project.index
        names = _Names.build(index, self.options)
        inventory = _Inventory()
        found = _read_constant(index, self.options.constant, tuple(self.options.flags.values()))
        constant = found[0]
        last_reported = max((p for p in index.by_path if project.reports(p)), default="")

        def needed(info: ModuleInfo) -> bool:
            # Each diagnostic is at the module that causes it, except two: the constant's
            # (they need every site) and, with no constant, one at the project's first site
            # (modules come in path order, so the first one that has a site holds it; past
            # the last reported module, it could only be somewhere not reported).
            if project.reports(info.path):
                return True
            if constant is None:
                return not inventory.sites and info.path < last_reported
            return project.reports(constant.path)

        for info in index.by_path.values():  # in path order
            if not self._is_test(info.path) and needed(info):
                yield from _ModuleCheck(self, project, info, names, inventory).run()
        yield from self._compare(found, inventory)

    def _is_test(self, path: str) -> bool:
        name = path.rpartition("/")[2]
        return any(fnmatchcase(path if "/" in pattern else name, pattern)
                   for pattern in self.options.test_files)

    # --- the constant against the discovered inventory -------------------------------------

    def _compare(self, found: tuple[_Constant | None, str],
                 inventory: _Inventory) -> Iterator[Diagnostic]:
        dotted = self.options.constant
        short = dotted.rpartition(".")[2]
        constant, missing = found
        if constant is None:
            if inventory.sites:
                first = min(inventory.sites, key=lambda s: (s.path, s.span))
                yield self.diagnostic(
                    first.path, first.span,
                    f"{first.flag} is set here, but the inventory constant {dotted} cannot be "
                    f"found ({missing}), so no site can be checked; define it as a literal "
                    "frozenset of (site, axis) pairs or configure sentinel-inventory.constant",
                    scope=first.site)
            return
        where = f"{constant.path}:{constant.span[0]}"
        if constant.problem is not None:
            yield self.diagnostic(
                constant.path, constant.span,
                f"{short} is not a literal LL002 can read ({constant.problem}); write it as a "
                "frozenset of (site, axis) string pairs or bare site strings",
                scope=dotted)
            return
        allowed: dict[tuple[str, str], _Entry] = {}
        for entry in constant.entries:
            earlier = [allowed[key] for key in entry.keys if key in allowed]
            for key in entry.keys:
                allowed.setdefault(key, entry)
            if len(earlier) == len(entry.keys):
                yield self.diagnostic(
                    constant.path, entry.span,
                    f"duplicate entry: {entry.shown} is already allowed on line "
                    f"{earlier[0].span[0]}", scope=dotted)
                continue
            used = [axis for site, axis in entry.keys if (site, axis) in inventory.keys]
            if not used:
                yield self.diagnostic(
                    constant.path, entry.span,
                    f"stale entry: no site sets {entry.shown} any more; remove it from {short}",
                    scope=dotted)
            elif entry.bare and len(used) < len(entry.keys):
                yield self.diagnostic(
                    constant.path, entry.span,
                    f"entry {entry.shown} allows every axis, but its site sets only "
                    f"{', '.join(repr(a) for a in used)}; narrow it to "
                    + ", ".join(f"({entry.site!r}, {a!r})" for a in used), scope=dotted)
        related = (Related(Location.at(constant.path, constant.span), f"{short} is defined here"),)
        for site in inventory.sites:
            if (site.site, site.axis) not in allowed:
                yield self.diagnostic(
                    site.path, site.span,
                    f"{site.site!r} sets {site.flag} (axis {site.axis!r}), but "
                    f"({site.site!r}, {site.axis!r}) is not in {short} ({where}); adding it "
                    "there is a contract change, reviewed as one (ADR-0119 D1)",
                    related=related, scope=site.site)


# --- what the rule learns while walking the project ------------------------------------------


@dataclass(frozen=True, slots=True)
class _Site:
    """One place that sets one axis for one site."""

    site: str
    axis: str
    flag: str
    path: str
    span: Span


@dataclass(slots=True)
class _Inventory:
    sites: list[_Site] = field(default_factory=list)
    keys: set[tuple[str, str]] = field(default_factory=set)

    def add(self, site: _Site) -> None:
        self.sites.append(site)
        self.keys.add((site.site, site.axis))


@dataclass(frozen=True, slots=True)
class _Names:
    """The configured names, resolved to the symbols the index gives their uses."""

    config: frozenset[str]
    gateways: frozenset[str]
    helpers: frozenset[str]
    replace: frozenset[str]
    partial: frozenset[str]
    setattr: frozenset[str]
    holders: frozenset[str]  # classes with a class-level config, and their subclasses
    #: Every callee the walk of calls looks at (the five sets above holders).
    interesting: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "interesting", self.config | self.gateways | self.helpers
                           | self.replace | self.partial | self.setattr)

    @classmethod
    def build(cls, index: ProjectIndex, options: Options) -> _Names:
        def symbols(names: Iterable[str]) -> frozenset[str]:
            return frozenset({*names, *(index.canonical(name) for name in names)})

        config = symbols(options.config_classes)
        config |= set(index.subclasses_of(config))
        holders = _config_holders(index, config, options.config_attribute)
        holders |= set(index.subclasses_of(holders))
        return cls(config, symbols(options.gateways), symbols(options.public_helpers),
                   symbols(options.replace_functions), symbols(options.partial_functions),
                   symbols(options.setattr_functions), frozenset(holders))


def _config_holders(index: ProjectIndex, config: frozenset[str], attribute: str) -> set[str]:
    """Classes whose body declares the config attribute as a config (by value or annotation)."""
    holders: set[str] = set()
    for info in index.by_path.values():
        classes = {c.qualname for c in info.facts.classes}
        for binding in info.facts.bindings:
            if binding.name != attribute or binding.scope not in classes:
                continue
            value = binding.value
            if value is not None and value.kind == "call" and \
                    index.resolve_expr(info.name, value.func, binding.scope) in config:
                holders.add(f"{info.name}.{binding.scope}")
            elif binding.annotation is not None and any(
                    index.resolve(info.name, ref, binding.scope) in config
                    for ref in _refs(binding.annotation)):
                holders.add(f"{info.name}.{binding.scope}")
    return holders


def _refs(expr: Expr) -> Iterator[str]:
    """Every dotted name in a (subscripted) annotation: ``ClassVar[ModelConfig]``."""
    if expr.ref:
        yield expr.ref
    if expr.func is not None:
        yield from _refs(expr.func)
    for item in expr.items:
        yield from _refs(item)


# --- arguments ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Flag:
    name: str
    axis: str
    value: Expr
    how: str  # "by keyword", "positionally", "in a ** dict"

    @property
    def state(self) -> str:
        """``set`` (a truthy literal), ``clear`` (a falsy literal) or ``computed``."""
        if self.value.kind != "const":
            return "computed"
        truthy = self.value.text == "ellipsis" or bool(self.value.value)
        return "set" if truthy else "clear"


@dataclass(frozen=True, slots=True)
class _Args:
    flags: tuple[_Flag, ...]
    opaque: tuple[Expr, ...]  # ``*args`` or ``**kwargs`` that may carry a flag


def _read_args(positional: tuple[Expr, ...], keywords: tuple[tuple[str, Expr], ...],
               flags: Mapping[str, str], offset: int | None) -> _Args:
    """The flags a call passes. ``offset`` is the index of the first positional flag (None
    when no flag can be passed positionally)."""
    order = list(flags)
    found: list[_Flag] = []
    opaque: list[Expr] = []
    if offset is not None:
        for number, arg in enumerate(positional):
            if arg.kind == "starred":
                if number < offset + len(order):
                    opaque.append(arg)
                break  # positions after a *args are unknown
            if offset <= number < offset + len(order):
                name = order[number - offset]
                found.append(_Flag(name, flags[name], arg, "positionally"))
    for key, value in keywords:
        if key in flags:
            found.append(_Flag(key, flags[key], value, "by keyword"))
        elif key == "**":
            literal = value.kind == "dict" and all(
                k.kind == "const" and isinstance(k.value, str) for k in value.items)
            if not literal:
                opaque.append(value)
                continue
            for k, v in zip(value.items, value.values):
                if k.value in flags and v is not None:
                    found.append(_Flag(k.value, flags[k.value], v, "in a ** dict"))
    return _Args(tuple(found), tuple(opaque))


# --- one module ---------------------------------------------------------------------------------


class _ModuleCheck:
    """Walks one module's calls and stores, recording sites and reporting misuses."""

    def __init__(self, rule: SentinelInventory, project: Project, info: ModuleInfo,
                 names: _Names, inventory: _Inventory) -> None:
        self.rule = rule
        self.options: Options = rule.options  # type: ignore[assignment]
        self.project = project
        self.index = project.index
        self.info = info
        self.names = names
        self.inventory = inventory
        self.mechanism = info.name in self.options.mechanism_modules
        attribute = self.options.config_attribute
        classes = {c.qualname for c in info.facts.classes}
        # The value of each class-body ``_config = ...``, by span, with its site.
        self.class_configs = {
            b.value.span: f"{info.name}.{b.scope}.{attribute}"
            for b in info.facts.bindings
            if b.name == attribute and b.scope in classes and b.kind in ("assign", "annassign")
            and b.value is not None
        }
        self.covered: set[Span] = set()  # configs already reported as part of a store

    def run(self) -> Iterator[Diagnostic]:
        for mutation in self.info.facts.mutations:
            if mutation.when != "typing":
                yield from self._store(mutation)
        for call in self.info.facts.calls:
            if call.when != "typing":
                yield from self._call(call)

    def _report(self, span: Span, message: str, scope: str, fix: Fix | None = None) -> Diagnostic:
        return self.rule.diagnostic(self.info.path, span, message, scope=scope, fix=fix)

    def _callee(self, func: Expr | None, scope: str) -> str | None:
        return self._symbol(func.ref if func is not None else None, scope)

    def _symbol(self, ref: str | None, scope: str) -> str | None:
        """What the dotted name ``ref`` means in ``scope``; builtins as ``builtins.X``."""
        if ref is None:
            return None
        symbol = self.index.resolve(self.info.name, ref, scope)
        if symbol is None and ref.partition(".")[0] in _BUILTINS:
            return f"builtins.{ref}"
        return symbol

    # --- stores: ``X._config = ...``, ``cfg.none_as_sentinel = True`` ------------------

    def _store(self, mutation: MutationFact) -> Iterator[Diagnostic]:
        if mutation.kind != "setattr" or mutation.value is None:
            return
        if mutation.attr == self.options.config_attribute:
            holder = self._holder(mutation.target, mutation.scope)
            if holder is not None:
                self.covered.add(mutation.value.span)
                yield self._config_store(mutation.span, holder, mutation.scope)
        elif mutation.attr in self.options.flags:
            flag = _Flag(mutation.attr, self.options.flags[mutation.attr], mutation.value, "")
            if flag.state == "set":
                yield self._report(mutation.span, f"assigns {flag.name} on an object; a "
                                   "legacy flag is set only in a class-body config or a "
                                   "gateway call at an inventoried site",
                                   self._owner(mutation.scope))

    def _holder(self, target: Expr, scope: str) -> str | None:
        """The class whose config a store replaces: a class with a class-level config named
        directly, or ``self``/``cls`` in one of its methods."""
        ref = target.ref
        if ref is None:
            return None
        symbol = self.index.resolve(self.info.name, ref, scope)
        if symbol in self.names.holders:
            return symbol
        function = self.index.functions.get(f"{self.info.name}.{scope}")
        if function is not None and function[1].params and ref == function[1].params[0]:
            owner = f"{self.info.name}.{function[1].scope}"
            if owner in self.names.holders:
                return owner
        return None

    def _config_store(self, span: Span, holder: str, scope: str) -> Diagnostic:
        qualname = self.index.classes[holder][1].qualname
        attribute = self.options.config_attribute
        return self._report(
            span, f"assigns {qualname}.{attribute} outside the body of {qualname}; a class "
            f"declares its config once, in its body ({attribute} = ...), where its site is "
            "inventoried", self._owner(scope))

    # --- calls --------------------------------------------------------------------------------

    def _call(self, call: CallFact) -> Iterator[Diagnostic]:
        symbol = self._symbol(call.func, call.scope)
        names = self.names
        if symbol is None or symbol not in names.interesting:
            return  # most calls: their arguments are never built (see CallFact)
        summary = call.call
        positional, keywords, via = summary.items, summary.keywords, ""
        if symbol in names.partial and positional:
            symbol = self._callee(positional[0], call.scope)
            positional, via = positional[1:], " through functools.partial"
        if symbol in names.config:
            yield from self._config_call(call, symbol, positional, keywords, via)
        elif symbol in names.gateways:
            yield from self._gateway_call(call, symbol, positional, keywords, via)
        elif symbol in names.helpers:
            yield from self._helper_call(call, symbol, positional, keywords, via)
        elif symbol in names.replace:
            yield from self._replace_call(call, symbol, positional, keywords)
        elif symbol in names.setattr and not via:
            yield from self._setattr_call(call, positional)

    def _config_call(self, call: CallFact, symbol: str, positional: tuple[Expr, ...],
                     keywords: tuple[tuple[str, Expr], ...], via: str) -> Iterator[Diagnostic]:
        args = _read_args(positional, keywords, self.options.flags, 0)
        site = None if via else self.class_configs.get(call.span)
        name = _short(symbol)
        if site is not None:
            yield from self._site(site, args, name)
            return
        owner = self._owner(call.scope)
        for flag in args.flags:
            if flag.state == "set" and call.span not in self.covered:
                yield self._report(
                    flag.value.span,
                    f"{name}(...){via} sets {flag.name} outside a class-body "
                    f"{self.options.config_attribute} = {name}(...), the only place a config "
                    "is an inventoried site", owner)
            elif flag.state == "computed" and not self.mechanism:
                yield self._computed(flag, name, owner)
        yield from self._opaque(args, name, owner)

    def _gateway_call(self, call: CallFact, symbol: str, positional: tuple[Expr, ...],
                      keywords: tuple[tuple[str, Expr], ...], via: str) -> Iterator[Diagnostic]:
        owner = self._owner(call.scope)
        args = _read_args(positional, keywords, self.options.flags, 1)
        yield from self._site_keyword(call, symbol, owner, keywords, via)
        yield from self._site(owner, args, _short(symbol))

    def _site_keyword(self, call: CallFact, symbol: str, owner: str,
                      keywords: tuple[tuple[str, Expr], ...], via: str) -> Iterator[Diagnostic]:
        keyword = self.options.site_keyword
        site = dict(keywords).get(keyword)
        name = _short(symbol)
        if site is None:
            if "**" not in dict(keywords):
                yield self._report(
                    call.span, f"{name}(...){via} has no {keyword}= keyword; pass its "
                    f"lexical owner, {keyword}={owner!r}", owner, fix=self._add_site(call, owner))
        elif site.kind != "const" or site.text != "str":
            if not self.mechanism:
                yield self._report(
                    site.span, f"{keyword}= of {name}(...) must be a string literal naming "
                    f"its lexical owner, {owner!r}", owner)
        elif site.value != owner:
            yield self._report(
                site.span, f"{keyword}={site.value!r} does not match its lexical owner "
                f"{owner!r}", owner, fix=self._replace_site(site, owner))

    def _site(self, site: str, args: _Args, name: str) -> Iterator[Diagnostic]:
        """Record the axes a site sets; report flags that cannot be inventoried."""
        dynamic = site in self.options.dynamic_sites
        for flag in args.flags:
            if flag.state == "set" or flag.state == "computed" and dynamic:
                self.inventory.add(_Site(site, flag.axis, flag.name, self.info.path,
                                         flag.value.span))
            elif flag.state == "computed" and not self.mechanism:
                yield self._computed(flag, name, site)
        yield from self._opaque(args, name, site)

    def _helper_call(self, call: CallFact, symbol: str, positional: tuple[Expr, ...],
                     keywords: tuple[tuple[str, Expr], ...], via: str) -> Iterator[Diagnostic]:
        args = _read_args(positional, keywords, self.options.flags, 1)
        name = _short(symbol)
        owner = self._owner(call.scope)
        for flag in args.flags:
            if flag.state == "set" or flag.state == "computed" and not self.mechanism:
                yield self._report(
                    flag.value.span,
                    f"{name}(...) implements identity semantics only and takes no legacy flag, "
                    f"but {flag.name} is passed {flag.how}{via}; an inventoried compatibility "
                    "site uses the private gateway instead", owner)
        yield from self._opaque(args, name, owner)

    def _replace_call(self, call: CallFact, symbol: str, positional: tuple[Expr, ...],
                      keywords: tuple[tuple[str, Expr], ...]) -> Iterator[Diagnostic]:
        args = _read_args((), keywords, self.options.flags, None)
        name = symbol.removeprefix("builtins.")
        owner = self._owner(call.scope)
        for flag in args.flags:
            if flag.state == "set":
                yield self._report(
                    flag.value.span, f"{name}(...) sets {flag.name} on a copy of a config; "
                    "a legacy flag is set only in a class-body config or a gateway call at "
                    "an inventoried site", owner)
            elif flag.state == "computed" and not self.mechanism:
                yield self._computed(flag, name, owner)
        # ``replace(anything, **changes)`` is everyday code; it matters only for a config.
        if positional and self._is_config(positional[0], call.scope):
            yield from self._opaque(args, name, owner)

    def _setattr_call(self, call: CallFact, positional: tuple[Expr, ...]) -> Iterator[Diagnostic]:
        if len(positional) < 3 or positional[1].kind != "const":
            return
        attribute, value = positional[1].value, positional[2]
        owner = self._owner(call.scope)
        if attribute == self.options.config_attribute:
            holder = self._holder(positional[0], call.scope)
            if holder is not None:
                self.covered.add(value.span)
                yield self._config_store(call.span, holder, call.scope)
        elif attribute in self.options.flags:
            flag = _Flag(attribute, self.options.flags[attribute], value, "")
            if flag.state == "set" or flag.state == "computed" and not self.mechanism:
                yield self._report(
                    call.span, f"sets {attribute} reflectively; a legacy flag is set only in "
                    "a class-body config or a gateway call at an inventoried site", owner)

    # --- shared pieces -------------------------------------------------------------------------

    def _computed(self, flag: _Flag, name: str, scope: str) -> Diagnostic:
        return self._report(
            flag.value.span,
            f"{flag.name} is passed to {name}(...) as a computed value; the inventory can only "
            "count literal flags (a site that must compute one is listed in "
            "sentinel-inventory.dynamic-sites)", scope)

    def _opaque(self, args: _Args, name: str, scope: str) -> Iterator[Diagnostic]:
        if self.mechanism:
            return
        for expr in args.opaque:
            spread = "*args" if expr.kind == "starred" else "**kwargs"
            yield self._report(
                expr.span, f"{spread} passed to {name}(...) may carry a legacy flag the "
                "inventory cannot see; pass each flag as a literal keyword", scope)

    def _is_config(self, expr: Expr, scope: str) -> bool:
        attribute = self.options.config_attribute
        if expr.ref is not None:
            return expr.ref == attribute or expr.ref.endswith(f".{attribute}")
        return expr.kind == "call" and self._callee(expr.func, scope) in self.names.config

    def _owner(self, scope: str) -> str:
        """The lexical owner: the module and enclosing classes and functions."""
        return f"{self.info.name}.{scope.replace('.<locals>', '')}" if scope else self.info.name

    def _replace_site(self, site: Expr, owner: str) -> Fix:
        line, column = site.span[0], site.span[1]
        text = self.project.source_lines(self.info.path)
        quote = text[line - 1][column - 1] if line <= len(text) and column <= len(text[line - 1]) \
            else '"'
        quote = quote if quote in "'\"" else '"'
        return Fix(f"set site= to its lexical owner {owner!r}",
                   (Edit(self.info.path, *site.span, f"{quote}{owner}{quote}"),))

    def _add_site(self, call: CallFact, owner: str) -> Fix | None:
        arguments = [*call.call.items, *(value for _, value in call.call.keywords)]
        if not arguments:
            return None
        last = max(arguments, key=lambda a: (a.span[2], a.span[3]))
        return Fix(f"pass site={owner!r}", (Edit(
            self.info.path, last.span[2], last.span[3], last.span[2], last.span[3],
            f", {self.options.site_keyword}={owner!r}"),))


def _short(symbol: str) -> str:
    return symbol.rpartition(".")[2]


# --- reading the constant -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Entry:
    site: str
    keys: tuple[tuple[str, str], ...]  # one pair, or one per axis for a bare site string
    span: Span
    bare: bool

    @property
    def shown(self) -> str:
        return repr(self.site) if self.bare else f"({self.site!r}, {self.keys[0][1]!r})"


@dataclass(frozen=True, slots=True)
class _Constant:
    path: str
    span: Span  # the name where it is bound
    entries: tuple[_Entry, ...]
    problem: str | None  # why the value cannot be read, if it cannot


def _read_constant(index: ProjectIndex, dotted: str,
                   axes: tuple[str, ...]) -> tuple[_Constant | None, str]:
    """The constant, or None and why it cannot be found."""
    module = index.project_module_of(dotted)
    if module is None or module == dotted:
        return None, f"no module of {dotted} is in the project"
    symbol = index.canonical(dotted)  # a re-export points at the definition
    home = index.project_module_of(symbol)
    name = symbol[len(home) + 1:] if home is not None and home != symbol else ""
    info = index.module(home) if home is not None else None
    bindings = [] if info is None else [
        b for b in info.facts.bindings
        if b.scope == "" and b.name == name and b.value is not None
        and b.kind in ("assign", "annassign")]
    if info is None or not bindings:
        return None, f"{module} binds no {dotted[len(module) + 1:]} at module level"
    binding = bindings[-1]  # the value in force once the module has run
    entries, problem = _read_entries(index, info.name, binding.value, axes)
    return _Constant(info.path, binding.span, entries, problem), ""


def _read_entries(index: ProjectIndex, module: str, value: Expr | None,
                  axes: tuple[str, ...]) -> tuple[tuple[_Entry, ...], str | None]:
    container = value
    if (container is not None and container.kind == "call" and container.func is not None
            and container.func.ref in _CONTAINER_BUILTINS and not container.keywords
            and index.resolve(module, container.func.ref) is None and len(container.items) <= 1):
        if not container.items:
            return (), None
        container = container.items[0]
    if container is not None and container.kind == "dict" and not container.items:
        return (), None  # ``frozenset({})``: an empty inventory
    if container is None or container.kind not in ("set", "tuple", "list"):
        return (), "its value is not a set, tuple or list literal"
    entries: list[_Entry] = []
    for item in container.items:
        if item.kind == "const" and isinstance(item.value, str):
            keys = tuple((item.value, axis) for axis in axes)
            entries.append(_Entry(item.value, keys, item.span, True))
            continue
        pair = [i.value for i in item.items if i.kind == "const" and isinstance(i.value, str)]
        if item.kind not in ("tuple", "list") or len(item.items) != 2 or len(pair) != 2:
            return (), (f"the entry on line {item.span[0]} is not a site string or a "
                        "(site, axis) pair of string literals")
        if pair[1] not in axes:
            return (), (f"the entry on line {item.span[0]} has axis {pair[1]!r}, not one of "
                        + ", ".join(repr(a) for a in axes))
        entries.append(_Entry(pair[0], ((pair[0], pair[1]),), item.span, False))
    return tuple(entries), None
