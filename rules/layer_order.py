"""LL005 layer-order: a module may import its own layer or a lower one, never a higher one."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import field_validator

from lintkit import Diagnostic, Expect, Invalid, Project, Rule, RuleOptions, Valid
from lintkit.core.imports import Edge, ModulePattern, import_graph
from lion_lint.rules._import_config import EdgeException, Table, check_patterns, pyproject_span

_STATEMENT_KINDS = frozenset({"import", "lazy", "dynamic"})


class Layers(Table):
    """``[tool.lion-lint.layers]``: the layers, lowest first, each a list of module prefixes
    (a single prefix may be written as a string)."""

    order: tuple[tuple[str, ...], ...]
    include_call_time: bool = False
    include_type_checking: bool = False
    exceptions: tuple[EdgeException, ...] = ()

    @field_validator("order", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        # Tuples, as the field is: options are validated strictly (validate_table), and
        # strict mode fills a tuple from a TOML array but not from a list made here.
        if isinstance(value, (list, tuple)):
            return tuple((item,) if isinstance(item, str) else
                         tuple(item) if isinstance(item, list) else item for item in value)
        return value

    @field_validator("order")
    @classmethod
    def _check(cls, value: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        if len(value) < 2:
            raise ValueError("list at least two layers, lowest first")
        seen: dict[str, int] = {}
        for number, layer in enumerate(value, 1):
            if not layer:
                raise ValueError(f"layer {number} lists no module")
            for prefix in check_patterns(layer):
                if prefix in seen:
                    raise ValueError(f"'{prefix}' is listed in layers {seen[prefix]} and {number}")
                seen[prefix] = number
        return value


class Options(RuleOptions):
    #: None: no layers configured, nothing to check.
    layers: Layers | None = None


_LAYERS = {"layers": {"order": ["app.core", "app.ops", ["app.cli", "app.studio"]]}}


class LayerOrder(Rule):
    """A module may import its own layer or a lower one, never a higher one.

    ## What it does
    Reads the layers of `[tool.lion-lint.layers]` (`order`, lowest first; each layer a list
    of module prefixes, the longest matching prefix deciding a module's layer) and reports
    every import-time edge from a module into a higher layer, at the import statement.
    Import-time edges are the ones LL004 follows: statements at module level and in class
    bodies (in any `try`/`if` branch), lazy `__getattr__` exports and literal dynamic
    imports. Imports inside functions and under `if TYPE_CHECKING:` are checked too when
    `include-call-time` / `include-type-checking` is set. Modules in no layer are free.
    Reviewed edges may be listed as `exceptions`, each with a reason; an exception that
    excuses nothing is reported.

    ## Why it matters
    ADR-0122 orders LionAGI's production code in layers (foundation, contracts, SDK runtime,
    optional feature adapters, composition roots). An upward import makes the lower layer
    load, and depend on, everything above it: the foundation stops being importable on its
    own, optional features become mandatory, and cycles follow.

    ## Example
    ```toml
    [tool.lion-lint.layers]
    order = ["app.core", "app.ops", ["app.cli", "app.studio"]]
    ```
    ```python
    # app/core/base.py
    from app.ops.run import execute    # LL005: app.core (layer 1) imports app.ops (layer 2)
    ```

    ## How to fix
    Invert the dependency: move the shared piece down into the lower layer, or pass the
    higher-layer object in (a parameter, a protocol the lower layer defines). If the edge is
    reviewed and must stay for now, list it under `exceptions` with a reason.
    """

    code = "LL005"
    name = "layer-order"
    summary = "A module must not import a module of a higher layer"
    Options = Options
    config_keys = ("layers",)

    valid = (
        Valid({"app/__init__.py": "", "app/ops/__init__.py": "from app.core import base\n",
               "app/core/__init__.py": "", "app/core/base.py": "import json\n"},
              config=_LAYERS, name="downward import"),
        Valid({"app/__init__.py": "", "app/core/__init__.py": "",
               "app/core/base.py": "def run():\n    from app.cli import main\n"},
              config=_LAYERS, name="call-time import"),
    )
    invalid = (
        Invalid({"app/__init__.py": "", "app/core/__init__.py": "", "app/ops/__init__.py": "",
                 "app/core/base.py": "import json\nfrom app.ops import run\n"},
                config=_LAYERS, name="upward import",
                expect=(Expect(2, "LL005", 1,
                               "app.core.base (layer 1, app.core) imports app.ops"),)),
        Invalid({"app/__init__.py": "", "app/ops/__init__.py": "", "app/cli.py": "",
                 "app/ops/run.py": "from .. import cli\n"},
                config=_LAYERS, name="relative import",
                expect=(Expect(1, "LL005", 1, "imports app.cli (layer 3, app.cli)"),)),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        layers = self.options.layers
        if layers is None:
            return
        yield from _LayerCheck(self, project, layers).run()


class _LayerCheck:
    def __init__(self, rule: LayerOrder, project: Project, layers: Layers) -> None:
        self.rule, self.project, self.layers = rule, project, layers
        self.patterns = [(number, ModulePattern(prefix))
                         for number, layer in enumerate(layers.order, 1) for prefix in layer]
        self.kinds = set(_STATEMENT_KINDS)
        if layers.include_call_time:
            self.kinds.add("call")
        if layers.include_type_checking:
            self.kinds.add("typing")
        self._layers: dict[str, tuple[int, str] | None] = {}

    def layer_of(self, module: str) -> tuple[int, str] | None:
        """The layer number and the prefix that puts ``module`` there (the longest match)."""
        if module not in self._layers:
            best: tuple[int, int, str] | None = None
            for number, pattern in self.patterns:
                if pattern.matches(module):
                    depth = pattern.text.count(".")
                    if best is None or depth > best[0]:
                        best = (depth, number, pattern.text)
            self._layers[module] = None if best is None else (best[1], best[2])
        return self._layers[module]

    def upward(self, edge: Edge) -> bool:
        low, high = self.layer_of(edge.importer), self.layer_of(edge.imported)
        return low is not None and high is not None and high[0] > low[0]

    def run(self) -> Iterator[Diagnostic]:
        graph = import_graph(self.project.index)
        exceptions = self.layers.exceptions
        for module in sorted(self.project.index.modules):
            if self.layer_of(module) is None:
                continue
            worst: dict[tuple[str, tuple[int, int, int, int]], Edge] = {}
            for edge in graph.edges_from(module, self.kinds):
                if not self.upward(edge) or any(e.matches(edge) for e in exceptions):
                    continue
                key = (edge.path, edge.span)
                known = worst.get(key)
                if known is None or self._rank(edge) > self._rank(known):
                    worst[key] = edge
            for edge in worst.values():
                yield self._report(edge)
        for exception in exceptions:
            edges = [e for e in graph.edges_from(exception.importer, self.kinds)
                     if exception.matches(e)]
            if edges and any(self.upward(e) for e in edges):
                continue
            problem = ("excuses nothing: the import is not upward" if edges
                       else "matches no checked import edge")
            path, span = pyproject_span(self.project, exception.importer, exception.imported)
            yield self.rule.diagnostic(path, span, f'layer exception "{exception.text}" '
                                       f"{problem}; remove it")

    def _rank(self, edge: Edge) -> tuple[int, int]:
        """Of several upward targets of one statement, report the highest, most specific."""
        layer = self.layer_of(edge.imported)
        return (layer[0] if layer else 0, len(edge.imported))

    def _report(self, edge: Edge) -> Diagnostic:
        low, high = self.layer_of(edge.importer), self.layer_of(edge.imported)
        assert low is not None and high is not None
        when = {"call": " at call time", "typing": " under TYPE_CHECKING",
                "lazy": " through a lazy export", "dynamic": " dynamically"}.get(edge.kind, "")
        return self.rule.diagnostic(
            edge.path, edge.span,
            f"{edge.importer} (layer {low[0]}, {low[1]}) imports {edge.imported} "
            f"(layer {high[0]}, {high[1]}){when}: a lower layer must not import a higher one",
            scope=edge.importer)

