"""``lion-lint imports MODULE``: the import-time closure of a module as the LL004 gate sees
it, and on request (``--runtime``) how it compares with what a real import loads."""

from __future__ import annotations

import difflib
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintkit.core.imports import IMPORT_TIME, WITH_CALL_TIME, Edge, ImportGraph, ancestors
from lintkit.core.project import Project
from lintkit.engine.discovery import named_path
from lintkit.runtime import RuntimeImport

Echo = Callable[[str], None]
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))
_WIDTH = 64  # the module column of the tree stops growing here


@dataclass(frozen=True)
class ImportsArgs:
    module: str
    output_format: str
    include_call_time: bool
    hide_stdlib: bool
    runtime: bool
    python: Path | None
    project: Path | None
    config_file: Path | None


class UsageError(Exception):
    """A module, project or interpreter that cannot be used (exit 2)."""


@dataclass
class Closure:
    """What importing one module loads, statically."""

    module: str
    graph: ImportGraph
    reached: dict[str, Edge | None]
    include_call_time: bool

    def category(self, module: str, stdlib: frozenset[str] = _STDLIB) -> str:
        if self.graph.is_project(module):
            return "project"
        top = module.partition(".")[0]
        if self.graph.is_project(top):
            return "missing"  # under a project package, but no such file
        return "stdlib" if top in stdlib else "third-party"

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for module in self.reached:
            if module != self.module:
                counts[self.category(module)] += 1
        return counts

    def predicted(self) -> tuple[set[str], set[str]]:
        """The modules the import-time graph says load (with the packages above modules
        outside the project), and the names outside modules might be submodules of."""
        modules: set[str] = set()
        maybe: set[str] = set()
        for module in self.graph.closure(self.module, IMPORT_TIME):
            modules.add(module)
            modules.update(ancestors(module))
            for edge_out in self.graph.edges_from(module, IMPORT_TIME):
                maybe.update(f"{edge_out.imported}.{name}" for name in edge_out.names)
        return modules, maybe


def run_imports(args: ImportsArgs, echo: Echo) -> int:
    """Print the closure (and the runtime comparison); return the exit status."""
    from lintkit.cli.compose import compose
    from lintkit.cli.plugins import project_config
    from lintkit.core.imports import import_graph
    from lintkit.engine.run import RunOptions, build_project, load_project

    found = project_config(_project_start(args), args.config_file)
    root = found.root
    config, _, _ = load_project(root, found.path, compose, RunOptions())
    project = build_project(config, options=RunOptions(use_cache=True))  # as `check` does
    module = _module_name(args.module, project, root)
    graph = import_graph(project.index)
    kinds = WITH_CALL_TIME if args.include_call_time else IMPORT_TIME
    closure = Closure(module, graph, graph.closure(module, kinds), args.include_call_time)
    runtime = None
    if args.runtime:
        runtime = _measure(closure, args.python, root, config.src_roots())
    if args.output_format == "json":
        echo(json.dumps(_to_json(closure, runtime), indent=2))
    else:
        lines = tree_lines(closure, args.hide_stdlib) if args.output_format == "tree" \
            else flat_lines(closure, args.hide_stdlib)
        for line in [*lines, "", *summary_lines(closure)]:
            echo(line)
        if runtime is not None:
            echo("")
            for line in runtime_lines(closure, runtime):
                echo(line)
    if runtime is None:
        return 0
    if runtime.error is not None:
        return 2
    return 1 if blind_spots(closure, runtime) else 0


def _project_start(args: ImportsArgs) -> Path:
    """Where to look for the project: --project, else MODULE given as a file or directory
    (its own project, wherever the shell is), else the current directory."""
    if args.project is not None:
        return args.project
    path = Path(args.module)
    if (args.module.endswith(".py") and path.is_file()) or path.is_dir():
        return path
    return Path(".")


def _module_name(wanted: str, project: Project, root: Path) -> str:
    index = project.index
    if index.is_module(wanted):
        return wanted
    path = Path(wanted)
    if wanted.endswith(".py") or path.is_dir():
        absolute = named_path(path)
        if absolute.is_dir():
            absolute = absolute / "__init__.py"
        try:
            info = index.module_of_path(absolute.relative_to(root).as_posix())
        except ValueError:
            info = None
        if info is not None:
            return str(info.name)
    close = difflib.get_close_matches(wanted, sorted(index.modules), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise UsageError(f"no module '{wanted}' in the project at {root}{hint}")


# --- the static closure ---------------------------------------------------------------------


def _tag(closure: Closure, module: str) -> str:
    category = closure.category(module)
    return "" if category == "project" else f" ({category})"


def _hidden(closure: Closure, module: str, hide_stdlib: bool) -> bool:
    return hide_stdlib and closure.category(module) == "stdlib"


def tree_lines(closure: Closure, hide_stdlib: bool = False) -> list[str]:
    """The closure as the tree of first arrivals: each module under the module whose
    import first loads it, children in the order Python runs them."""
    children: dict[str, list[str]] = defaultdict(list)
    for module, edge in closure.reached.items():
        if edge is not None and not _hidden(closure, module, hide_stdlib):
            children[edge.importer].append(module)
    rows: list[tuple[str, str]] = [(closure.module, "")]
    # A stack, not a function that calls itself: that would be a reference cycle (the
    # command runs with the collector paused), and a chain of imports can run deep.
    stack = _branches(children, closure.module, "")
    while stack:
        child, prefix, last = stack.pop()
        edge = closure.reached[child]
        assert edge is not None
        rows.append((f"{prefix}{'└── ' if last else '├── '}{child}{_tag(closure, child)}",
                     edge.describe()))
        stack.extend(_branches(children, child, prefix + ("    " if last else "│   ")))
    width = min(max(len(text) for text, _ in rows), _WIDTH)
    return [f"{text:<{width}}  {how}".rstrip() for text, how in rows]


def _branches(children: dict[str, list[str]], module: str,
              prefix: str) -> list[tuple[str, str, bool]]:
    """A module's children as (child, prefix, is last), reversed for a stack to pop in order."""
    kids = children.get(module, [])
    return [(kid, prefix, number == len(kids) - 1) for number, kid in enumerate(kids)][::-1]


def flat_lines(closure: Closure, hide_stdlib: bool = False) -> list[str]:
    """One line per module loaded, sorted by name: category, how and where, from whom."""
    rows = []
    for module, edge in sorted(closure.reached.items()):
        if edge is None or _hidden(closure, module, hide_stdlib):
            continue
        where = "" if edge.kind == "parent" else f"{edge.path}:{edge.span[0]}"
        rows.append((module, closure.category(module), edge.label, where, edge.importer))
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return [f"{m:<{widths[0]}}  {c:<{widths[1]}}  {k:<{widths[2]}}  {w:<{widths[3]}}  from {i}"
            for m, c, k, w, i in rows]


def summary_lines(closure: Closure) -> list[str]:
    counts = closure.counts()
    total = sum(counts.values())
    parts = [f"{counts[c]} {c}" for c in ("project", "third-party", "stdlib", "missing")
             if counts[c]]
    what = "at import time or when its functions run" if closure.include_call_time \
        else "at import time"
    lines = [f"importing {closure.module} loads {total} module{'s' * (total != 1)} {what}"
             + (f": {', '.join(parts)}" if parts else "")]
    whens = ("import", "call") if closure.include_call_time else ("import",)
    for site in closure.graph.opaque_in(closure.reached, whens):
        lines.append(f"warning: {site.path}:{site.span[0]}: {site.call}() with a non-literal "
                     "module name: the static closure cannot see what it loads")
    return lines


# --- the runtime comparison -------------------------------------------------------------------


def _measure(closure: Closure, python: Path | None, root: Path,
             src_roots: tuple[str, ...]) -> RuntimeImport:
    from lintkit.runtime import ProbeError, import_in_subprocess

    sys_path = [str(root / r) if r else str(root) for r in src_roots]
    predicted, _ = closure.predicted()
    outside = sorted({m.partition(".")[0] for m in predicted
                      if closure.category(m) in ("third-party", "stdlib")})
    try:
        return import_in_subprocess(closure.module, python=python, sys_path=sys_path,
                                    cwd=root, check=outside)
    except ProbeError as error:
        raise UsageError(str(error)) from None


@dataclass
class Comparison:
    predicted: set[str]
    loaded: set[str]
    both: set[str]
    not_loaded: list[str]
    outside: list[str]  # loaded, not predicted, by code outside the project
    blind: list[str]  # loaded, not predicted, by project code


def compare(closure: Closure, runtime: RuntimeImport) -> Comparison:
    predicted, maybe = closure.predicted()
    loaded = set(runtime.loaded)
    present = loaded | runtime.preloaded
    unexpected = [m for m in runtime.loaded if m not in predicted and m not in maybe]
    outside, blind = [], []
    for module in unexpected:
        importer = runtime.importers.get(module, "")
        by_project = importer == "" or closure.graph.is_project(importer)
        (blind if by_project else outside).append(module)
    return Comparison(predicted=predicted, loaded=loaded, both=predicted & present,
                      not_loaded=sorted(predicted - present), outside=outside, blind=blind)


def blind_spots(closure: Closure, runtime: RuntimeImport) -> list[str]:
    return compare(closure, runtime).blind


def runtime_lines(closure: Closure, runtime: RuntimeImport) -> list[str]:
    lines = [f"runtime: {runtime.python} (Python {runtime.version}) imported {closure.module} "
             f"in {runtime.seconds:.2f} s"]
    if runtime.error is not None:
        return [*lines, f"error: the import failed: {runtime.error}",
                "(run the project's own interpreter with --python, e.g. .venv/bin/python)"]
    result = compare(closure, runtime)
    lines[0] += f" and loaded {len(result.loaded)} new modules"

    def category(module: str) -> str:
        return closure.category(module, runtime.stdlib or _STDLIB)

    table = [("", "static", "runtime", "both")]
    for name in ("project", "third-party", "stdlib"):
        table.append((name,
                      str(sum(1 for m in result.predicted if category(m) == name)),
                      str(sum(1 for m in result.loaded if category(m) == name)),
                      str(sum(1 for m in result.both if category(m) == name))))
    for row in table:
        lines.append(f"  {row[0]:<12}{row[1]:>8}{row[2]:>9}{row[3]:>6}")
    preloaded = result.both & runtime.preloaded
    if preloaded:
        lines.append(f"  ('both' counts {len(preloaded)} modules the interpreter had loaded "
                     "before the import)")
    lines += ["", "predicted by the static graph, not loaded at run time "
                  f"({len(result.not_loaded)}):"]
    for module in result.not_loaded:
        edge = closure.reached.get(module)
        why = "not installed" if module.partition(".")[0] in runtime.missing else "not run"
        how = f"{edge.describe()} from {edge.importer}" if edge is not None else "parent package"
        lines.append(f"  {module} ({category(module)}, {why}): {how}")
    lines += ["", f"loaded at run time by modules outside the project, not predicted "
                  f"({len(result.outside)}): the static graph stops at those modules"]
    by_importer: dict[str, list[str]] = defaultdict(list)
    for module in result.outside:
        by_importer[runtime.importers.get(module, "?") or "?"].append(module)
    for importer in sorted(by_importer):
        lines.append(f"  by {importer}: {', '.join(sorted(by_importer[importer]))}")
    lines += ["", f"loaded at run time by project code, not predicted ({len(result.blind)}):"]
    for module in result.blind:
        lines.append(f"  {module}: " + " -> ".join(runtime.chain(module)))
    root = closure.graph.index.modules[closure.module].path
    found = runtime.files.get(closure.module, "")
    if found and not found.replace("\\", "/").endswith(root):
        lines.append(f"warning: {closure.module} was imported from {found}, not from this "
                     "project's source (an installed copy shadows it?)")
    lines.append("")
    lines.append("the static closure accounts for every module the project's code imported"
                 if not result.blind else
                 "the static graph missed the modules above: LL004 cannot see those imports")
    return lines


def _to_json(closure: Closure, runtime: RuntimeImport | None) -> dict[str, Any]:
    entries = []
    for module, edge in closure.reached.items():
        entry: dict[str, Any] = {"module": module, "category": closure.category(module)}
        if edge is not None:
            entry.update(kind=edge.kind, importer=edge.importer,
                         path=None if edge.kind == "parent" else edge.path,
                         line=None if edge.kind == "parent" else edge.span[0], via=edge.via)
        entries.append(entry)
    whens = ("import", "call") if closure.include_call_time else ("import",)
    data: dict[str, Any] = {
        "module": closure.module,
        "include_call_time": closure.include_call_time,
        "closure": entries,
        "opaque": [{"path": o.path, "line": o.span[0], "module": o.module, "call": o.call}
                   for o in closure.graph.opaque_in(closure.reached, whens)],
    }
    if runtime is not None:
        data["runtime"] = {"python": runtime.python, "version": runtime.version,
                           "seconds": runtime.seconds, "error": runtime.error}
        if runtime.error is None:
            result = compare(closure, runtime)
            data["runtime"].update(
                loaded=list(runtime.loaded), predicted_not_loaded=result.not_loaded,
                loaded_outside=result.outside, blind_spots=result.blind,
                importers={m: runtime.importers.get(m, "") for m in runtime.loaded})
    return data
