"""The import-boundary gate's own cost: building the import graph and running LL004/LL005.

    python benchmarks/bench_imports.py PROJECT [--runs N]

PROJECT is a directory in a project (e.g. a LionAGI checkout); its files are read through
the phase-1 cache, so what is timed is the gate's share of a run, not parsing (see
bench.py for whole runs). Prints medians of --runs runs with min and max, and the load
average before and after: figures taken on a busy machine say little.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _figure(name: str, times: list[float]) -> str:
    return (f"{name:<28} median {statistics.median(times) * 1000:8.1f} ms   "
            f"min {min(times) * 1000:8.1f}   max {max(times) * 1000:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    args = parser.parse_args()

    from lion_lint.rules.import_boundary import ImportBoundary
    from lion_lint.rules.layer_order import LayerOrder
    from lintkit.cli.compose import compose
    from lintkit.cli.plugins import project_config
    from lintkit.core import imports
    from lintkit.engine.run import RunOptions, build_project, load_project

    print(f"load average before: {os.getloadavg()[0]:.2f}")
    found = project_config(args.project)
    config, _, _ = load_project(found.root, found.path, compose, RunOptions())
    started = time.perf_counter()
    project = build_project(config, options=RunOptions(use_cache=True))
    print(f"{len(project.index.modules)} modules; facts and index in "
          f"{time.perf_counter() - started:.2f} s (not part of the figures below)")
    boundary = ImportBoundary(ImportBoundary.options_from_config(config.tool_table))
    layers = LayerOrder(LayerOrder.options_from_config(config.tool_table))
    graph_times, boundary_times, layer_times = [], [], []
    for _ in range(args.runs):
        imports._GRAPHS.clear()
        start = time.perf_counter()
        imports.import_graph(project.index)
        graph_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        reported = list(boundary.check(project))
        boundary_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        ordered = list(layers.check(project))
        layer_times.append(time.perf_counter() - start)
    print(_figure("import graph", graph_times))
    print(_figure(f"LL004 ({len(reported)} diagnostics)", boundary_times))
    print(_figure(f"LL005 ({len(ordered)} diagnostics)", layer_times))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
