"""What lion-lint's performance targets are up against: LibCST's own costs, measured.

    python benchmarks/limits.py [PATH] [--runs N]

``bench.py`` measures lion-lint's runs. This takes them apart, on the same corpus (by
default the running interpreter's standard library; PATH measures another directory
instead): the costs that belong to LibCST, which no change inside lion-lint can remove,
beside lion-lint's whole per-file phase 1 and the one other parser a design could use:

  import    ``import libcst`` in a fresh interpreter, over a bare interpreter's start
  rules     importing pydantic, the settings model and the shipped rules in a fresh
            interpreter, over the command line's own imports: what every run that checks
            a file pays and a warm run's replay does not (lion-lint's, not LibCST's)
  parse     LibCST's ``parse_module`` over every file that parses (bench.py's floor), and
            the same parse without LibCST's per-node re-validation, as lion-lint parses
            (with the cyclic collector paused, as in lion-lint's workers)
  codegen   one plain code-generation pass per parsed module, as LibCST's position
            providers run it (LibCST gives positions only through code generation)
  positions lion-lint's own, lighter pass for the nodes its facts need (part of phase 1)
  phase 1   what a cold run does per file, as lion-lint does it: parse, facts, positions,
            the facts' JSON written (worker) and read back (main process); the part beyond
            LibCST's parse is lion-lint's own
  ast       CPython's ``ast.parse`` of the same file: the cheapest other source of line
            and column a design could use instead of a code-generation pass
  memory    the peak RSS of a fresh interpreter parsing each of the largest files
  cores     LibCST's parse in one process over every file, against as many processes as
            there are usable cores, each over an equal share of the bytes, all at once: how
            far this machine's cores are from dividing the floor by their number
  resident  phase 2 in a process that has imported everything (as a process kept between
            runs would have): decoding every file's facts from a full cache, building the
            index, and running the rules bench.py runs, on a copy of the corpus as bench.py
            makes it; and the share of the project each file's imports reach, about what
            a run reporting on that file would decode if the rules asked only about it

Times are totals over the corpus in one process, medians of --runs passes; they
alternate file by file, so a machine whose speed drifts slows them alike. It then prints
what they imply for each of the issue's targets on this machine's usable cores.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import deque
from pathlib import Path

from bench import (PARSE_FLOOR, build_corpus, check_corpus, corpus_files, machine,
                   mid_size_file, parse_floor, positive_count)

from lintkit.core.imports import WITH_CALL_TIME, import_graph
from lintkit.core.index import ProjectIndex
from lintkit.engine.workers import usable_cores

#: Prints the peak RSS (KB) after importing LibCST and after parsing the file named in argv.
#: Linux's VmHWM, not ru_maxrss, which keeps the forking parent's size across exec.
PEAK = """
import resource, sys

def peak():
    try:
        with open("/proc/self/status") as status:
            return next(int(l.split()[1]) for l in status if l.startswith("VmHWM"))
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

import libcst
before = peak()
try:
    libcst.parse_module(open(sys.argv[1], "rb").read())
except Exception:
    pass
print(before, peak())
"""


#: What a run that checks files imports beyond the command line: the settings model (and with
#: it pydantic) and the shipped rules, as the composition root loads them.
IMPORT_RULES = """
import lintkit.cli.main, lintkit.config.model
from lintkit.cli.compose import shipped_rules
shipped_rules()
"""


def wall(code: str, runs: int) -> float:
    """Median wall time of ``python -c code`` in a fresh interpreter."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def parse_costs(paths: list[str], sources: list[bytes], runs: int) -> dict[str, float]:
    """Median totals (seconds) over the files that parse: LibCST's parse with the collector
    on (the floor, as bench.py measures it), and, with the collector paused as in lion-lint's
    workers, the parse without re-validation, one codegen pass, lion-lint's position pass,
    its whole phase 1 and CPython's ast.parse. They alternate file by file, so that a
    machine whose speed drifts (a shared VM) slows all of them alike."""
    import ast
    import gc

    import libcst
    from libcst._nodes.internal import CodegenState

    from lintkit.core.facts import FileFacts
    from lintkit.engine.phase1 import analyse_file
    from lintkit.parsing.cstparse import parse_module
    from lintkit.parsing.extract import _Ctx, _Extractor
    from lintkit.parsing.positions import node_spans

    passes: dict[str, list[float]] = {"parse (the floor)": [], "parse unvalidated": [],
                                      "codegen": [], "positions": [], "phase 1": [],
                                      "ast.parse": []}
    nowhere = Path()
    for _ in range(runs):
        totals = dict.fromkeys(passes, 0.0)
        gc.collect()
        try:
            for path, source in zip(paths, sources):
                gc.enable()
                try:
                    start = time.perf_counter()
                    libcst.parse_module(source)
                    floor = time.perf_counter()
                    gc.disable()
                    module = parse_module(source)
                    parsed = time.perf_counter()
                    module._codegen(CodegenState(default_indent=module.default_indent,
                                                 default_newline=module.default_newline))
                    generated = time.perf_counter()
                    extractor = _Extractor(FileFacts(path=path, is_package=False))
                    extractor.block(module.body, _Ctx())
                    placed = time.perf_counter()
                    node_spans(module, extractor.wanted)
                    positioned = time.perf_counter()
                    del module, extractor  # freeing these is no part of the next measurement
                    freed = time.perf_counter()
                    analyse_file(nowhere, path, source)
                    analysed = time.perf_counter()
                    ast.parse(source)
                    done = time.perf_counter()
                except Exception:  # a broken file, or one nested too deeply for the stack
                    continue
                totals["parse (the floor)"] += floor - start
                totals["parse unvalidated"] += parsed - floor
                totals["codegen"] += generated - parsed
                totals["positions"] += positioned - placed
                totals["phase 1"] += analysed - freed
                totals["ast.parse"] += done - analysed
                gc.collect(0)  # as the workers do: LibCST leaves a few cycles per file
        finally:
            gc.enable()
        for name, total in totals.items():
            passes[name].append(total)
    return {name: statistics.median(values) for name, values in passes.items()}


def shares(paths: list[str], sizes: list[int], count: int) -> list[list[str]]:
    """``paths`` dealt into ``count`` shares of about equal bytes: largest first, each to
    the share that holds the fewest bytes so far."""
    dealt: list[list[str]] = [[] for _ in range(count)]
    held = [0] * count
    for size, path in sorted(zip(sizes, paths), key=lambda pair: (-pair[0], pair[1])):
        lightest = held.index(min(held))
        dealt[lightest].append(path)
        held[lightest] += size
    return [share for share in dealt if share]


def parse_on_cores(root: Path, paths: list[str], sizes: list[int], cores: int,
                   runs: int) -> tuple[float, float]:
    """Medians of (one process's parse of every file, the slowest parse of ``cores``
    processes each parsing its share at the same time). Each time is the parse alone, as
    each process measures it (bench.py's floor), not its start or ``import libcst``."""
    one: list[float] = []
    slowest: list[float] = []
    dealt = shares(paths, sizes, cores)
    for _ in range(runs):
        one.append(parse_floor(root, paths))
        started = [subprocess.Popen([sys.executable, "-c", PARSE_FLOOR], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True) for _ in dealt]
        # Each is given its files before any is waited for: they parse at the same time.
        for process, share in zip(started, dealt):
            process.stdin.write("\n".join(str(root / p) for p in share))  # type: ignore[union-attr]
            process.stdin.close()  # type: ignore[union-attr]
        outputs = [process.stdout.read() for process in started]  # type: ignore[union-attr]
        if any(process.wait() for process in started):
            raise RuntimeError("a parsing process failed")
        slowest.append(max(float(text) for text in outputs))
    return statistics.median(one), statistics.median(slowest)


def parse_peak(path: Path) -> tuple[int, int]:
    """(RSS after importing LibCST, peak RSS after parsing ``path``), in bytes."""
    done = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True,
                          text=True, check=True)
    before, after = map(int, done.stdout.split())
    return before * 1024, after * 1024


def resident_costs(source: Path, runs: int) -> dict[str, float]:
    """Median seconds of phase 2's parts in this process, which has imported everything by
    then: what a changed run would still pay if the process stayed between runs. The cache
    is filled first (a cold pass, not timed, whose facts also give the import reach); each
    pass then decodes every file's facts from it, builds the index and runs the rules
    (``--select LL``, as bench.py)."""
    from lintkit.cli.compose import compose
    from lintkit.engine import phase1
    from lintkit.engine.discovery import discover
    from lintkit.engine.memory import collector_paused
    from lintkit.engine.projects import RunOptions
    from lintkit.engine.run import index_project, load_project

    with tempfile.TemporaryDirectory(prefix="lion-lint-limits-") as work:
        root = Path(work) / "corpus"
        root.mkdir()
        build_corpus(source, root)
        options = RunOptions(select=("LL",), use_cache=True, cache_dir=Path(work) / "cache")
        config, _, rules = load_project(root, root / "pyproject.toml", compose, options)
        paths, _ = discover(root, config.settings)
        from_cache = phase1.options_for(root, config.settings, use_cache=True,
                                        cache_dir=options.cache_dir)
        filled = phase1.run_phase1(root, paths, {}, from_cache, settings=config.settings)
        reach = import_reach(index_project(config, filled.facts, {}).index)
        del filled
        parts: dict[str, list[float]] = {"decode": [], "index": [], "rules": []}
        for _ in range(runs):
            with collector_paused():  # as the command line runs
                start = time.perf_counter()
                facts = phase1.run_phase1(root, paths, {}, from_cache,
                                          settings=config.settings).facts
                decoded = time.perf_counter()
                project = index_project(config, facts, {})
                indexed = time.perf_counter()
                for rule in rules:
                    deque(rule.check(project), maxlen=0)
                    project.index.forget_resolutions()
                checked = time.perf_counter()
            parts["decode"].append(decoded - start)
            parts["index"].append(indexed - decoded)
            parts["rules"].append(checked - indexed)
            del facts, project
    medians = {name: statistics.median(times) for name, times in parts.items()}
    return {**medians, "reach median": statistics.median(reach),
            "reach p90": reach[int(0.9 * (len(reach) - 1))]}


def import_reach(index: ProjectIndex) -> list[float]:
    """Each project module's static import closure (its imports at any time, a function's
    too, transitively, its packages included) as a share of the project's modules, sorted:
    about what a run that reports on that one file would decode if the rules asked the
    index only about what the file reaches (today they read every file's facts)."""
    graph = import_graph(index)
    shares = [sum(1 for module in graph.closure(name, WITH_CALL_TIME) if module in index.modules)
              / len(index.modules) for name in index.modules]
    return sorted(shares)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path,
                        default=Path(sysconfig.get_paths()["stdlib"]),
                        help="a directory of Python code (default: the standard library)")
    parser.add_argument("--runs", type=positive_count, default=3, help="passes per measurement (default 3)")
    options = parser.parse_args()
    check_corpus(parser, options.path)
    root = options.path.resolve()
    cores = usable_cores()
    print(f"LibCST's costs on {machine()}")
    paths = corpus_files(root)
    sources = [(root / p).read_bytes() for p in paths]
    print(f"corpus: {root} ({len(paths)} files, "
          f"{sum(map(len, sources)) / 1e6:.1f} MB)\n")

    bare = wall("pass", 7)
    imported = wall("import libcst", 7)
    print(f"  import libcst        {imported - bare:7.3f} s   (fresh interpreter, median of 7)")
    command_line = wall("import lintkit.cli.main", 7)
    with_rules = wall(IMPORT_RULES, 7)
    print(f"  import the rules     {with_rules - command_line:7.3f} s   (pydantic, the settings "
          f"model and the shipped rules, over the command line's imports, median of 7)")
    costs = parse_costs(paths, sources, options.runs)
    floor = costs["parse (the floor)"]
    for name, seconds in costs.items():
        print(f"  {name:<20} {seconds:7.3f} s   {seconds / floor:5.2f} x the floor")
    sizes = [len(source) for source in sources]
    alone, together = parse_on_cores(root, paths, sizes, cores, options.runs)
    print(f"  {f'parse on {cores} cores':<20} {together:7.3f} s   the slowest of {cores} processes "
          f"parsing equal shares at once, {together / alone:.2f} x one process's "
          f"{alone:.3f} s (dividing by {cores} would give {1 / cores:.2f} x)")
    resident = resident_costs(root, options.runs)
    print(f"  resident             decode {resident['decode']:.3f} s, index "
          f"{resident['index']:.3f} s, rules {resident['rules']:.3f} s   (phase 2 with "
          "everything imported; the cache filled)")
    largest = [p for _, p in sorted(zip(sizes, paths))[-3:]]
    peaks = {p: parse_peak(root / p) for p in largest}
    for path, (before, after) in peaks.items():
        print(f"  memory parsing {path}: {after / 2**20:.0f} MB peak "
              f"({before / 2**20:.0f} MB with LibCST imported)")

    middle = mid_size_file(root, paths)
    middle_parse = statistics.median(parse_floor(root, [middle]) for _ in range(5))
    libcst_share = costs["parse unvalidated"]
    facts_share = costs["phase 1"] - libcst_share - costs["positions"]
    with_ast = costs["phase 1"] - costs["positions"] + costs["ast.parse"]
    most_peak = max(after for _, after in peaks.values())
    imported_rss = min(before for before, _ in peaks.values())
    print(f"\nWhat follows, with {cores} usable cores:")
    print(f"  cold: phase 1 costs {costs['phase 1'] / floor:.2f} x the floor of CPU: "
          f"LibCST's parse {libcst_share / floor:.2f} x, the position pass "
          f"{costs['positions'] / floor:.2f} x (LibCST's plain codegen "
          f"{costs['codegen'] / floor:.2f} x), lion-lint's facts and JSON "
          f"{facts_share / floor:.2f} x. Spread perfectly over {cores} cores "
          f"that is {costs['phase 1'] / cores / floor:.2f} x the floor of wall time before "
          f"phase 2 (target 0.6 x); LibCST's part alone is {libcst_share / cores / floor:.2f} x")
    print(f"        spread as this machine's cores spread LibCST's parse ({together / alone:.2f} x "
          f"one process), phase 1 is {costs['phase 1'] * together / alone / floor:.2f} x, and "
          f"LibCST's part alone {libcst_share * together / alone / floor:.2f} x")
    print(f"        with positions from CPython's parser (a second parse, "
          f"{costs['ast.parse'] / floor:.2f} x) in place of the position pass, phase 1 would be "
          f"{with_ast / cores / floor:.2f} x: that keeps lion-lint's bookkeeping of positions, "
          "which matching the two trees would replace, and comes before phase 2")
    print(f"  changed: a run that parses one file imports LibCST ({imported - bare:.3f} s), "
          f"and one that checks it imports the rules ({with_rules - command_line:.3f} s); "
          f"the target allows warm + 1.5 x that file's parse, which is "
          f"{1.5 * middle_parse:.3f} s over a warm run for the mid-size {middle}")
    print(f"           a process kept between runs, with everything imported and every other "
          f"file's facts decoded, would still build the index and run the rules over the "
          f"whole project: {resident['index'] + resident['rules']:.3f} s, "
          f"{(resident['index'] + resident['rules']) / (1.5 * middle_parse):.1f} x that "
          "allowance; only rules that redo just what a change reaches fit in it")
    print(f"           a run that reports on one file (an editor's, a pre-commit hook's) "
          f"decodes every file's facts ({resident['decode']:.3f} s); a file's imports reach "
          f"{resident['reach median']:.0%} of the modules (median; 90th percentile "
          f"{resident['reach p90']:.0%}): rules that asked only about what the file reaches "
          f"would decode about {resident['reach median'] * resident['decode']:.3f} s")
    workers = most_peak + (cores - 1) * imported_rss
    print(f"  memory: while one worker parses the largest file the {cores} workers hold at "
          f"least {workers / 2**20:.0f} MB, before the facts the main process gathers "
          "(target 300 MB for the whole run)")


if __name__ == "__main__":
    main()
