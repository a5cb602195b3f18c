"""LL001 structural-eq: the structural-identity family keeps the structural equality."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

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
from lintkit.core.facts import ClassFact, Expr
from lintkit.core.index import ModuleInfo, ProjectIndex

EQ_METHODS = ("__eq__", "__hash__")

_AUTHORITY = '''
from dataclasses import dataclass

@dataclass(frozen=True, eq=False)
class Params:
    def __eq__(self, other):
        return type(self) is type(other)
'''


class Options(RuleOptions):
    authorities: tuple[str, ...] = (
        "lionagi.ln.types.base.Params",
        "lionagi.ln.types.base.Meta",
        "lionagi.ln.types.spec.Spec",
    )
    dataclass_decorators: tuple[str, ...] = (
        "dataclasses.dataclass",
        "pydantic.dataclasses.dataclass",
    )
    make_dataclass: tuple[str, ...] = ("dataclasses.make_dataclass",)
    require_explicit_eq_false: bool = False


class StructuralEq(Rule):
    """Subclasses of the structural-identity authorities keep the structural equality.

    ## What it does
    Finds every class in the project that descends, directly or through any chain of bases
    across modules, from a structural-identity authority (by default LionAGI's `Params`,
    `Meta` and `Spec`), and reports a member that would replace the authority's structural
    `__eq__`/`__hash__`:

    - a `@dataclass` decoration that does not pass a literal `eq=False` (a bare `@dataclass`,
      `@dataclass(frozen=True)`, `eq=True`, a computed `eq`, `**kwargs`), or that passes
      `unsafe_hash=True`;
    - an `__eq__` or `__hash__` defined in the class body (a method, an assignment such as
      `__hash__ = None`) or assigned onto the class afterwards (`X.__eq__ = ...`,
      `setattr(X, "__hash__", ...)`), without a declared override reason;
    - a class made at run time from a member (`make_dataclass(..., bases=(Params,))`,
      `type(name, (Params,), ns)`) whose equality is not pinned to the authority's.

    The authorities themselves must pass a literal `eq=False` when they are dataclasses.
    With `require-explicit-eq-false = true`, a member without any dataclass decorator is
    reported too.

    ## Why it matters
    ADR-0119 D4: `Params`, `Spec` and `Meta` hold one typed structural equality and hash.
    A dataclass decorator generates its own `__eq__` (and with `unsafe_hash`, `__hash__`)
    unless told `eq=False`, and the generated ones silently win over the inherited ones, so
    which equality a declaration gets is decided by a decorator argument instead of by the
    base class. Two equal-looking values of different subclasses can then compare equal, and
    equal values can hash apart.

    ## Example
    ```python
    from dataclasses import dataclass
    from lionagi.ln.types import Params

    @dataclass(frozen=True)          # eq defaults to True: LL001
    class ChatParam(Params):
        model: str
    ```

    ## How to fix
    Pass `eq=False` to every dataclass decorator of the family:
    `@dataclass(frozen=True, eq=False)` (`lion-lint --fix` does this). If a class really must
    define its own `__eq__` or `__hash__`, declare why on that line:
    `def __eq__(self, other):  # lion-lint: ignore[LL001] -- compares by id, see ADR-0001`.
    """

    code = "LL001"
    name = "structural-eq"
    summary = "Params/Spec/Meta subclasses must keep the structural eq (eq=False, no own __eq__/__hash__)"
    Options = Options

    valid = (
        Valid({"pkg/base.py": _AUTHORITY, "pkg/child.py": (
            "from dataclasses import dataclass\n"
            "from pkg.base import Params\n\n"
            "@dataclass(frozen=True, eq=False)\n"
            "class Child(Params):\n"
            "    x: int = 0\n"
        )}, options={"authorities": ["pkg.base.Params"]}, name="eq=False"),
        Valid({"pkg/base.py": _AUTHORITY, "pkg/plain.py": (
            "from dataclasses import dataclass\n\n"
            "@dataclass\n"
            "class NotAMember:\n"
            "    def __eq__(self, other):\n"
            "        return True\n"
        )}, options={"authorities": ["pkg.base.Params"]}, name="unrelated class"),
        Valid({"pkg/base.py": _AUTHORITY, "pkg/child.py": (
            "from pkg.base import Params\n\n"
            "class Inherits(Params):\n"
            "    pass\n"
        )}, options={"authorities": ["pkg.base.Params"]}, name="no decorator inherits"),
    )
    invalid = (
        Invalid({"pkg/base.py": _AUTHORITY, "pkg/child.py": (
            "import dataclasses as dc\n"
            "from .base import Params as P\n\n"
            "@dc.dataclass(frozen=True)\n"
            "class Child(P):\n"
            "    x: int = 0\n"
        )}, expect=(Expect(5, "LL001", 7, "Child descends from Params"),),
            options={"authorities": ["pkg.base.Params"]}, name="eq defaults to True"),
        Invalid({"pkg/base.py": _AUTHORITY, "pkg/child.py": (
            "from pkg.base import Params\n\n"
            "class Child(Params):\n"
            "    __hash__ = None\n"
        )}, expect=(Expect(4, "LL001", 5, "defines __hash__"),),
            options={"authorities": ["pkg.base.Params"]}, name="hash assignment"),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        index = project.index
        authorities = self._authorities(index)
        family = index.subclasses_of(authorities)
        decorators = set(self.options.dataclass_decorators)
        # Every diagnostic is at the class or the statement it is about: the family is
        # found in the whole project, the checks run where the run reports.
        reported = [info for info in index.by_path.values() if project.reports(info.path)]
        for symbol in sorted(authorities):
            if symbol in index.classes and project.reports(index.classes[symbol][0].path):
                info, cls = index.classes[symbol]
                yield from self._check_decorators(index, info, cls, [symbol], decorators,
                                                  project.source_lines)
        for symbol, chain in family.items():
            info, cls = index.classes[symbol]
            if not project.reports(info.path):
                continue
            found = list(self._check_decorators(index, info, cls, chain, decorators,
                                                project.source_lines))
            yield from found
            if (not found and self.options.require_explicit_eq_false
                    and not self._dataclass_decorators(index, info, cls, decorators)):
                yield self._report(index, info, cls, chain, cls.span,
                                   "has no dataclass decorator declaring eq=False "
                                   "(require-explicit-eq-false)")
            yield from self._check_body(index, info, cls, chain)
        yield from self._check_after_definition(index, reported, family)
        yield from self._check_dynamic(index, reported, authorities | set(family))

    # --- the family ------------------------------------------------------------------------

    def _authorities(self, index: ProjectIndex) -> frozenset[str]:
        """Configured authorities, plus the symbol each resolves to when it is a re-export."""
        names = self.options.authorities
        return frozenset({*names, *(index.canonical(name) for name in names)})

    def _report(self, index: ProjectIndex, info: ModuleInfo, cls: ClassFact, chain: list[str],
                span: tuple[int, int, int, int], problem: str, fix: Fix | None = None,
                scope: str | None = None) -> Diagnostic:
        authority = chain[-1].rpartition(".")[2]
        via = [index.classes[s][1].qualname for s in chain[1:-1] if s in index.classes]
        lineage = f" (via {' -> '.join(via)})" if via else ""
        subject = (f"{cls.qualname} descends from {authority}{lineage} but"
                   if len(chain) > 1 else f"authority {cls.qualname}:")
        related = [
            Related(_location(index, s), f"{index.classes[s][1].qualname} is a base here")
            for s in chain[1:] if s in index.classes
        ]
        return self.diagnostic(info.path, span, f"{subject} {problem}", related=related, fix=fix,
                               scope=scope or f"{info.name}.{cls.qualname}")

    # --- decorators ------------------------------------------------------------------------

    def _dataclass_decorators(self, index: ProjectIndex, info: ModuleInfo, cls: ClassFact,
                              decorators: set[str]) -> list[Expr]:
        found = []
        for decorator in cls.decorators:
            target = decorator.func if decorator.kind == "call" else decorator
            symbol = index.resolve_expr(info.name, target, cls.scope)
            if symbol in decorators:
                found.append(decorator)
        return found

    def _check_decorators(self, index: ProjectIndex, info: ModuleInfo, cls: ClassFact,
                          chain: list[str], decorators: set[str],
                          lines: Callable[[str], list[str]]) -> Iterator[Diagnostic]:
        for decorator in self._dataclass_decorators(index, info, cls, decorators):
            problem = _decorator_problem(decorator)
            if problem is not None:
                yield self._report(index, info, cls, chain, cls.span, problem,
                                   fix=_eq_false_fix(info.path, decorator, lines(info.path)))

    # --- __eq__ / __hash__ ---------------------------------------------------------------

    def _check_body(self, index: ProjectIndex, info: ModuleInfo, cls: ClassFact,
                    chain: list[str]) -> Iterator[Diagnostic]:
        authority = chain[-1].rpartition(".")[2]
        for function in info.facts.functions:
            if function.scope == cls.qualname and function.name in EQ_METHODS:
                yield self._report(index, info, cls, chain, function.span,
                                   f"defines {function.name}, replacing the structural one of "
                                   f"{authority} without a declared override reason")
        for binding in info.facts.bindings:
            if binding.scope == cls.qualname and binding.name in EQ_METHODS:
                yield self._report(index, info, cls, chain, binding.span,
                                   f"defines {binding.name} by assignment, replacing the "
                                   f"structural one of {authority} without a declared "
                                   "override reason")

    def _check_after_definition(self, index: ProjectIndex, modules: list[ModuleInfo],
                                family: dict[str, list[str]]) -> Iterator[Diagnostic]:
        for info in modules:
            for mutation in info.facts.mutations:
                if mutation.kind == "setattr" and mutation.attr in EQ_METHODS:
                    symbol = index.resolve_expr(info.name, mutation.target, mutation.scope)
                    if symbol in family:
                        yield self._assigned_later(index, info, symbol, family[symbol],
                                                   mutation.attr, mutation.span, mutation.scope)
            for call in info.facts.calls:
                if call.func != "setattr" or call.positional_count < 2:
                    continue
                if index.resolve(info.name, "setattr", call.scope) is not None:
                    continue  # a project-defined or imported setattr, not the builtin
                args = call.call.items
                name = args[1].value if args[1].kind == "const" else None
                symbol = index.resolve_expr(info.name, args[0], call.scope)
                if name in EQ_METHODS and symbol in family:
                    yield self._assigned_later(index, info, symbol, family[symbol], name,
                                               call.span, call.scope)

    def _assigned_later(self, index: ProjectIndex, info: ModuleInfo, symbol: str,
                        chain: list[str], method: str, span: tuple[int, int, int, int],
                        where: str) -> Diagnostic:
        _, cls = index.classes[symbol]
        authority = chain[-1].rpartition(".")[2]
        # The assignment may sit in another module: its scope is where it is written.
        return self._report(index, info, cls, chain, span,
                            f"gets {method} assigned after its definition, replacing the "
                            f"structural one of {authority}",
                            scope=f"{info.name}.{where}" if where else info.name)

    # --- dynamic creation ----------------------------------------------------------------

    def _check_dynamic(self, index: ProjectIndex, modules: list[ModuleInfo],
                       members: set[str]) -> Iterator[Diagnostic]:
        make = set(self.options.make_dataclass)
        for info in modules:
            for call in info.facts.calls:
                func = call.func
                if func is None:
                    continue
                bases: Expr | None = None
                pinned = False
                if func == "type" and call.positional_count == 3:
                    if index.resolve(info.name, "type", call.scope) is not None:
                        continue
                    summary = call.call
                    bases, namespace = summary.items[1], summary.items[2]
                    pinned = namespace.kind == "dict" and not any(
                        k.kind == "const" and k.value in EQ_METHODS for k in namespace.items)
                elif (("bases" in call.keyword_names or call.positional_count >= 3)
                      and index.resolve(info.name, func, call.scope) in make):
                    # Only a call that passes bases can make a family member; resolving
                    # every call of the project would cost more than the rest of the rule,
                    # and building its arguments more still (see CallFact).
                    summary = call.call
                    bases = summary.keyword("bases")
                    if bases is None and len(summary.items) >= 3:
                        bases = summary.items[2]
                    eq = summary.keyword("eq")
                    pinned = eq is not None and eq.is_const(False) and not _unsafe_hash(summary)
                if bases is None or pinned or bases.kind not in ("tuple", "list"):
                    continue
                for base in bases.items:
                    symbol = index.resolve_expr(info.name, base, call.scope)
                    if symbol in members:
                        name = symbol.rpartition(".")[2]
                        how = "make_dataclass without eq=False" if func != "type" else \
                            "type() with a namespace that may define __eq__/__hash__"
                        yield self.diagnostic(
                            info.path, call.span,
                            f"class created dynamically from {name} by {how}, so its equality "
                            "is not pinned to the structural one",
                            scope=f"{info.name}.{call.scope}".rstrip("."))
                        break


def _unsafe_hash(call: Expr) -> bool:
    unsafe = call.keyword("unsafe_hash")
    return unsafe is not None and not unsafe.is_const(False)


def _decorator_problem(decorator: Expr) -> str | None:
    if decorator.kind != "call":
        return ("its bare @dataclass does not pass eq=False, so a generated __eq__ "
                "replaces the structural one")
    eq = decorator.keyword("eq")
    if _unsafe_hash(decorator):
        return ("its @dataclass passes unsafe_hash=True, so a generated __hash__ replaces "
                "the structural one")
    if eq is None:
        if decorator.keyword("**") is not None:
            return ("its @dataclass takes **kwargs instead of a literal eq=False, so the "
                    "structural __eq__ is not guaranteed")
        return ("its @dataclass does not pass eq=False, so a generated __eq__ replaces "
                "the structural one")
    if eq.is_const(False):
        return None
    if eq.is_const(True):
        return "its @dataclass passes eq=True, so a generated __eq__ replaces the structural one"
    return ("its @dataclass passes a non-literal eq, so the structural __eq__ is not "
            "guaranteed")


def _eq_false_fix(path: str, decorator: Expr, lines: list[str]) -> Fix | None:
    """Text edits that make the decorator pass eq=False and drop unsafe_hash (None where no
    safe edit exists). Only the arguments change: formatting and comments around them stay."""
    if decorator.kind != "call":
        line, _, end_line, end_column = decorator.span
        return Fix("pass eq=False to the dataclass decorator",
                   (Edit(path, end_line, end_column, end_line, end_column, "(eq=False)"),))
    if decorator.keyword("**") is not None:
        return None
    edits = []
    eq = decorator.keyword("eq")
    unsafe = decorator.keyword("unsafe_hash") if _unsafe_hash(decorator) else None
    start = _keyword_column(lines, "unsafe_hash", unsafe) if unsafe is not None else None
    if unsafe is not None and start is None:
        return None  # an unusual layout: better no fix than a wrong one
    if eq is not None:
        if not eq.is_const(False):
            edits.append(Edit(path, *eq.span, "False"))
    elif unsafe is not None and start is not None:
        # Where unsafe_hash=True stood, eq=False now stands.
        edits.append(Edit(path, unsafe.span[0], start, *unsafe.span[2:], "eq=False"))
        unsafe = None
    else:
        arguments = [*decorator.items, *(value for _, value in decorator.keywords)]
        if arguments:
            last = max(arguments, key=lambda a: (a.span[2], a.span[3]))
            edits.append(Edit(path, last.span[2], last.span[3], last.span[2], last.span[3],
                              ", eq=False"))
        else:
            _, _, end_line, end_column = decorator.span
            edits.append(Edit(path, end_line, end_column - 1, end_line, end_column - 1,
                              "eq=False"))
    if unsafe is not None and start is not None:
        edits.append(_drop_keyword(path, lines[unsafe.span[0] - 1], start, unsafe))
    return Fix("pass eq=False to the dataclass decorator"
               + (" and drop unsafe_hash" if _unsafe_hash(decorator) else ""), tuple(edits))


def _keyword_column(lines: list[str], name: str, value: Expr) -> int | None:
    """Where ``name=`` begins before ``value``, when both sit on one line (else None)."""
    line_number, column, end_line, _ = value.span
    if line_number != end_line or not 1 <= line_number <= len(lines):
        return None
    keyword = re.search(rf"\b{name}\s*=\s*$", lines[line_number - 1][:column - 1])
    return keyword.start() + 1 if keyword else None


def _drop_keyword(path: str, text: str, column: int, value: Expr) -> Edit:
    """The edit deleting the keyword argument from ``column`` through ``value`` on the line
    ``text``, with one adjacent comma."""
    line_number, _, _, end_column = value.span
    start, before, after = column - 1, text[:column - 1], text[end_column - 1:]
    if not before.strip() and re.fullmatch(r"\s*,?\s*(#.*)?", after):
        # Alone on its line (a trailing comment describes it): the whole line goes.
        return Edit(path, line_number, 1, line_number + 1, 1, "")
    preceding = re.search(r",\s*$", before)
    if preceding is not None:  # "a=1, unsafe_hash=True" -> "a=1"
        return Edit(path, line_number, preceding.start() + 1, line_number, end_column, "")
    following = re.match(r"\s*,[ \t]*", after)
    if following is not None and after[following.end():].strip()[:1] not in ("", "#"):
        # "unsafe_hash=True, a=1" -> "a=1"
        return Edit(path, line_number, start + 1, line_number, end_column + following.end(), "")
    return Edit(path, line_number, start + 1, line_number, end_column, "")


def _location(index: ProjectIndex, symbol: str) -> Location:
    info, cls = index.classes[symbol]
    return Location.at(info.path, cls.span)
