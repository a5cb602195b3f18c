"""LL004 import-boundary: importing a module must not load what its contract forbids."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from pydantic import field_validator

from lintkit import (
    Diagnostic,
    Expect,
    Invalid,
    Location,
    Project,
    Related,
    Rule,
    RuleOptions,
    Valid,
)
from lintkit.core.facts import Span
from lintkit.core.imports import (
    IMPORT_TIME,
    WITH_CALL_TIME,
    Edge,
    ImportGraph,
    ModulePattern,
    ancestors,
    chain_to,
    format_chain,
    hop_text,
    import_graph,
)
from lion_lint.rules._import_config import (
    EdgeException,
    Table,
    check_patterns,
    exception_blocker,
    first_statement,
    pyproject_span,
)

#: What LionAGI's neutral layer may not load (ADR-0119 D8, "Adapter separation"): Pydantic,
#: SQLAlchemy and the StateDB driver, StateDB, Studio, the CLI, the providers and the provider
#: SDKs LionAGI supports.
NEUTRAL_LAYER_FORBIDS = (
    "pydantic", "pydantic_*", "sqlalchemy", "aiosqlite",
    "lionagi.state", "lionagi.studio", "lionagi.cli", "lionagi.providers",
    "openai", "anthropic", "google.genai", "google.generativeai", "groq", "ollama",
    "mistralai", "cohere", "litellm", "autogen", "ag2", "exa_py", "firecrawl", "tavily",
)


class Contract(Table):
    """``[[tool.lion-lint.boundaries]]``: importing ``modules`` must not load ``forbid``."""

    name: str
    modules: tuple[str, ...]
    forbid: tuple[str, ...]
    exceptions: tuple[EdgeException, ...] = ()
    include_call_time: bool = False

    @field_validator("modules", "forbid")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("must list at least one module")
        return check_patterns(value)


NEUTRAL_LAYER = Contract(name="neutral layer", modules=("lionagi.ln.types",),
                         forbid=NEUTRAL_LAYER_FORBIDS)


class Options(RuleOptions):
    #: None: LionAGI's neutral-layer contract. ``boundaries = []`` checks nothing.
    boundaries: tuple[Contract, ...] | None = None


#: A non-literal dynamic import's site -> (module it runs in, when, names of the contracts).
_OpaqueSites = dict[tuple[str, Span], tuple[str, str, list[str]]]
#: One diagnostic per (forbidden pattern, path and span of the first import statement).
_FindingKey = tuple[str, str, Span]


@dataclass
class _Finding:
    root: str
    target: str
    chain: list[Edge]


_LEAK = {
    "pkg/__init__.py": "import heavy\n",
    "pkg/core/__init__.py": "",
    "pkg/core/types.py": "import json\n",
}
_CONTRACT = {"boundaries": [{"name": "light core", "modules": ["pkg.core"], "forbid": ["heavy"]}]}


class ImportBoundary(Rule):
    """Importing a module must not load what its boundary contract forbids.

    ## What it does
    Answers "what does `import X` load?" from the project's import graph and checks each
    contract in `[[tool.lion-lint.boundaries]]`: importing any of its `modules` (or their
    submodules) must not load any `forbid` module (or its submodules; `*` globs allowed).
    The graph follows what Python runs: the parent packages of a module (importing `a.b.c`
    runs `a/__init__.py` and `a/b/__init__.py`), imports in `try`/`except` and `if`/`else`
    branches, class bodies, the `else` of `if TYPE_CHECKING:`, lazy exports of a module
    `__getattr__`, literal `importlib.import_module(...)`/`__import__(...)` calls, and
    imports inside project functions that module-level code calls. Imports inside function
    bodies run later and are left out, unless the contract sets `include-call-time = true`.

    Each violation is reported once per contract, forbidden module and first import
    statement of the chain, at that statement (it may be in a parent package's
    `__init__.py`), with the shortest chain. A dynamic import whose module name is not a
    literal is reported as a warning: the gate cannot see through it. An exception that
    excuses nothing is reported. With no contracts configured, LionAGI's neutral-layer
    contract applies: `lionagi.ln.types` must not load Pydantic, SQLAlchemy, aiosqlite,
    `lionagi.state`, `lionagi.studio`, `lionagi.cli`, `lionagi.providers` or a provider SDK.

    ## Why it matters
    ADR-0119 D8: importing `lionagi.ln.types` must not import Pydantic, SQLAlchemy, StateDB,
    Studio, provider SDKs or CLI modules, so that neutral declarations stay cheap to import
    and free of adapter concerns. A direct-import check misses most real leaks: they come
    through a parent package's `__init__.py`, a `try:` import, a lazy export, or an import a
    module-level call runs. Checks that count imports inside functions report clean layers
    as broken, so people stop reading them.

    ## Example
    ```python
    # lionagi/__init__.py  (runs whenever lionagi.ln.types is imported)
    from pydantic import BaseModel        # LL004: importing lionagi.ln.types loads pydantic
    ```

    ## How to fix
    Move the import where it is needed: into the function that uses it, under
    `if TYPE_CHECKING:` when only annotations need it, or behind a lazy `__getattr__`
    export. If an edge is reviewed and must stay for now, list it as an exception of the
    contract, with a reason:
    `exceptions = [{ importer = "pkg.mod", imported = "pydantic", reason = "until #123" }]`.
    """

    code = "LL004"
    name = "import-boundary"
    summary = "Importing a module must not load what its boundary contract forbids"
    Options = Options
    config_keys = ("boundaries",)

    valid = (
        Valid({**_LEAK, "pkg/__init__.py": "def load():\n    import heavy\n"}, config=_CONTRACT,
              name="call-time import"),
        Valid({**_LEAK, "pkg/__init__.py": (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import heavy\n")},
            config=_CONTRACT, name="TYPE_CHECKING only"),
        Valid({"pkg/__init__.py": "import heavy_tools\n", "pkg/core/__init__.py": ""},
              config=_CONTRACT, name="a different module"),
    )
    invalid = (
        Invalid(_LEAK, config=_CONTRACT, name="leak through a parent package",
                expect=(Expect(1, "LL004", 1,
                               'importing pkg.core loads heavy (contract "light core")'),)),
        Invalid({**_LEAK, "pkg/core/types.py": (
            "try:\n    import orjson as json\n"
            "except ImportError:\n    import heavy.json as json\n")},
            config={"boundaries": [{"name": "light core", "modules": ["pkg.core.types"],
                                    "forbid": ["heavy"]}]},
            expect=(Expect(1, "LL004", 1, "importing pkg.core.types loads heavy"),
                    Expect(4, "LL004", 5, "loads heavy.json")),
            name="except branch"),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        configured = self.options.boundaries is not None
        contracts = self.options.boundaries if configured else (NEUTRAL_LAYER,)
        opaque: _OpaqueSites = {}
        for contract in contracts or ():
            yield from _ContractCheck(self, project, contract, configured).run(opaque)
        for (path, span), (module, when, names) in sorted(opaque.items()):
            contracts_text = ", ".join(f'"{n}"' for n in sorted(set(names)))
            runs = (f"runs when {module} is imported" if when == "import"
                    else f"runs when functions of {module} are called")
            yield self.diagnostic(
                path, span, f"dynamic import with a non-literal module name {runs}: the "
                f"import-boundary gate cannot see what it loads (contract {contracts_text})",
                severity="warning", scope=module)


class _ContractCheck:
    """One contract on one project."""

    def __init__(self, rule: ImportBoundary, project: Project, contract: Contract,
                 configured: bool) -> None:
        self.rule, self.project, self.contract = rule, project, contract
        self.configured = configured
        self.kinds = WITH_CALL_TIME if contract.include_call_time else IMPORT_TIME
        self.forbid = [ModulePattern(p) for p in contract.forbid]
        patterns = [ModulePattern(p) for p in contract.modules]
        self.roots = sorted(m for m in project.index.modules if any(p.matches(m) for p in patterns))
        self.root_set = frozenset(self.roots)
        self.blocked = exception_blocker(contract.exceptions)
        self._nearest_memo: dict[tuple[str, frozenset[str]],
                                 dict[str, tuple[list[Edge], str]]] = {}
        self._match_memo: dict[tuple[str, Edge], str | None] = {}

    @cached_property
    def graph(self) -> ImportGraph:
        # Built on first use (and shared by the run's rules): a project where no contract
        # matches a module, such as any project but LionAGI under the default contract,
        # never pays for it.
        return import_graph(self.project.index)

    def run(self, opaque: _OpaqueSites) -> Iterator[Diagnostic]:
        if not self.roots:
            if self.configured:
                path, span = pyproject_span(self.project, self.contract.name)
                yield self.rule.diagnostic(
                    path, span, f'contract "{self.contract.name}" matches no module of the '
                    f"project (modules = {list(self.contract.modules)})")
            return
        findings: dict[_FindingKey, _Finding] = {}
        for root in self.roots:
            # Importing ``root`` runs it and its parent packages: while they run, they are
            # already in sys.modules, so a chain that comes back to them loads nothing new.
            running = frozenset(ancestors(root)) | self.root_set
            for lead, first in self._first_hops(root, running):
                for pattern_text, (rest, target) in self._nearest(first, running).items():
                    chain = [*lead, first, *rest]
                    key = (pattern_text, first.path, first.span)
                    known = findings.get(key)
                    if known is None or len(chain) < len(known.chain):
                        findings[key] = _Finding(root, target, chain)
        for (pattern_text, _, _), finding in sorted(findings.items(), key=_finding_order):
            yield self._report(pattern_text, finding)
        self._collect_opaque(opaque)
        yield from self._unused_exceptions()

    # --- chains ------------------------------------------------------------------------------

    def _first_hops(self, root: str, running: frozenset[str]) -> Iterator[tuple[list[Edge], Edge]]:
        """Each statement that importing ``root`` runs first-hand: in ``root`` itself and in
        its parent packages (other roots of the contract report their own)."""
        parents = {e.imported: e for e in self.graph.edges_from(root, ("parent",))}
        origins: list[tuple[str, list[Edge]]] = [(root, [])]
        for ancestor in ancestors(root):
            if ancestor in parents and ancestor not in self.root_set:
                origins.append((ancestor, [parents[ancestor]]))
        for origin, lead in origins:
            for edge in self.graph.edges_from(origin, self.kinds):
                if edge.kind == "parent" or edge.imported in running:
                    continue
                if self.blocked is not None and self.blocked(edge):
                    continue
                yield lead, edge

    def _nearest(self, first: Edge, running: frozenset[str]) -> dict[str, tuple[list[Edge], str]]:
        """For each forbidden pattern loaded through ``first``: the shortest rest of the
        chain after ``first`` and the module it reaches."""
        return {**self._reached_from(first.imported, running), **self._matched(first)}

    def _reached_from(self, start: str,
                      running: frozenset[str]) -> dict[str, tuple[list[Edge], str]]:
        found = self._nearest_memo.get((start, running))
        if found is not None:
            return found
        reach = self.graph.reach([start], self.kinds, blocked=self.blocked, stop=running)
        found = {}
        for module in reach:
            if (module in running and module != start) or len(found) == len(self.forbid):
                continue
            for edge in self.graph.edges_from(module, self.kinds):
                if self.blocked is not None and self.blocked(edge):
                    continue
                for pattern in self.forbid:
                    if pattern.text not in found:
                        target = self._match(pattern, edge)
                        if target is not None:
                            found[pattern.text] = ([*chain_to(reach, module), edge], target)
        self._nearest_memo[(start, running)] = found
        return found

    def _matched(self, edge: Edge) -> dict[str, tuple[list[Edge], str]]:
        """The patterns ``edge`` itself loads (the chain ends at it)."""
        out: dict[str, tuple[list[Edge], str]] = {}
        for pattern in self.forbid:
            target = self._match(pattern, edge)
            if target is not None:
                out[pattern.text] = ([], target)
        return out

    def _match(self, pattern: ModulePattern, edge: Edge) -> str | None:
        key = (pattern.text, edge)
        if key not in self._match_memo:
            self._match_memo[key] = pattern.matches_edge(edge)
        return self._match_memo[key]

    def _report(self, pattern_text: str, finding: _Finding) -> Diagnostic:
        chain, target, root = finding.chain, finding.target, finding.root
        first = first_statement(chain)
        assert first is not None  # a chain always ends in a statement
        name = self.contract.name
        why = f'contract "{name}"' if pattern_text == target else \
            f'contract "{name}" forbids {pattern_text}'
        if any(e.kind == "call" for e in chain):
            message = (f"importing {root}, then calling functions it loads, can load {target} "
                       f"({why}, which includes call-time imports)")
        else:
            message = f"importing {root} loads {target} ({why})"
        related = [Related(Location.at(e.path, e.span), hop_text(e)) for e in chain]
        return self.rule.diagnostic(first.path, first.span, message, related=related,
                                    detail=format_chain(chain), scope=first.importer)

    # --- warnings and stale exceptions ---------------------------------------------------------

    def _collect_opaque(self, opaque: _OpaqueSites) -> None:
        reached = self.graph.reach(self.roots, self.kinds, blocked=self.blocked)
        whens = ("import", "call") if self.contract.include_call_time else ("import",)
        for site in self.graph.opaque_in(reached, whens):
            entry = opaque.setdefault((site.path, site.span), (site.module, site.when, []))
            entry[2].append(self.contract.name)

    def _unused_exceptions(self) -> Iterator[Diagnostic]:
        if not self.contract.exceptions:
            return
        reached = self.graph.reach(self.roots, self.kinds)
        for exception in self.contract.exceptions:
            edges = [e for e in self.graph.edges_from(exception.importer, self.kinds)
                     if exception.matches(e)]
            if not edges:
                problem = "matches no import edge" + (
                    "" if self.contract.include_call_time else " that runs at import time")
            elif not any(e.importer in reached and self._loads_forbidden(e) for e in edges):
                problem = "excuses nothing: no forbidden module is loaded through it"
            else:
                continue
            path, span = pyproject_span(self.project, exception.importer, exception.imported)
            yield self.rule.diagnostic(
                path, span, f'exception "{exception.text}" of contract "{self.contract.name}" '
                f"{problem}; remove it")

    def _loads_forbidden(self, edge: Edge) -> bool:
        if self._matched(edge):
            return True
        reach = self.graph.reach([edge.imported], self.kinds)
        return any(self._match(p, e) is not None for module in reach
                   for e in self.graph.edges_from(module, self.kinds) for p in self.forbid)


def _finding_order(item: tuple[_FindingKey, _Finding]) -> tuple[str, Span, str]:
    (pattern_text, path, span), _ = item
    return (path, span, pattern_text)
