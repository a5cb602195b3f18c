"""Reliability sweep: lint every Python file of large real corpora and count what breaks.

    python benchmarks/sweep.py [PATH ...] [--no-stdlib] [--no-site-packages] [--jobs N]
                               [--timeout S] [--fuzz] [--examples N] [--seed N]

By default the corpora are the running interpreter's standard library (tests included:
they hold files with deliberate syntax errors and odd encodings) and its site-packages;
each PATH adds a corpus. Every ``.py`` file under a corpus is linted (no exclusions, no
.gitignore), with every rule on, each rule configured to have something to check there.

Phase 1 runs per file in worker processes that report each file they start, so a crash
is pinned to its file: an exception, a worker killed by a signal (a segfault in the
parser), or a file taking longer than --timeout. Phase 2 builds the project index and runs
each rule; a rule that raises is rerun on one file at a time to name the files that make
it fail. Waivers are applied as the engine applies them. Internal errors are all of these;
the target is zero. Every file that could not be checked must instead show as an LL000
diagnostic with its reason, and all of them are listed.

--fuzz runs the generated-module property of tests/fuzz_support.py for --examples examples
(a longer session than the suite's) and counts the examples that raise.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import sys
import sysconfig
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lintkit.cli.compose import shipped_rules  # noqa: E402
from lintkit.config.load import LoadedConfig  # noqa: E402
from lintkit.config.model import Settings  # noqa: E402
from lintkit.core.builtin import ENGINE_RULES  # noqa: E402
from lintkit.core.diagnostics import Diagnostic, Location  # noqa: E402
from lintkit.core.facts import FileFacts, facts_from_data, facts_to_data  # noqa: E402
from lintkit.core.index import ProjectIndex, module_name_for  # noqa: E402
from lintkit.core.project import Project  # noqa: E402
from lintkit.core.rule import Rule  # noqa: E402
from lintkit.core.suppressions import apply_suppressions, group_by_path  # noqa: E402
from lintkit.engine.phase1 import analyse_file, too_large  # noqa: E402
from lintkit.engine.workers import read_error  # noqa: E402
from lintkit.engine.run import instantiate  # noqa: E402

#: Rule tables that give each configurable rule something to look at in these corpora.
STDLIB_TABLE: dict[str, Any] = {
    "structural-eq": {"authorities": ["enum.Enum", "typing.NamedTuple", "email.message.Message"]},
    "boundaries": [{"name": "small modules stay small",
                    "modules": ["json", "email", "logging", "csv", "string"],
                    "forbid": ["tkinter", "idlelib", "test", "asyncio", "http.server"]}],
    "layers": {"order": [["abc", "types", "functools"], ["collections", "re", "enum"],
                         ["json", "email", "logging"], ["http", "urllib", "asyncio"]]},
}
SITE_TABLE: dict[str, Any] = {
    "structural-eq": {"authorities": ["pydantic.BaseModel", "pydantic.main.BaseModel",
                                      "libcst.CSTNode", "enum.Enum"]},
    "boundaries": [{"name": "core libraries stay lean",
                    "modules": ["pydantic", "libcst", "click", "rich", "attr"],
                    "forbid": ["numpy", "pandas", "tkinter", "IPython", "pytest"]}],
    "layers": {"order": [["typing_extensions", "pydantic_core"], ["pydantic", "attr"],
                         ["libcst", "rich", "click"], ["hypothesis", "pip", "setuptools"]]},
}


@dataclass
class InternalError:
    where: str  # "phase 1", "rule LL001", "waivers"
    path: str
    detail: str


@dataclass
class CorpusResult:
    name: str
    root: Path
    files: int = 0
    diagnostics: Counter[str] = field(default_factory=Counter)
    ll000: list[Diagnostic] = field(default_factory=list)
    internal: list[InternalError] = field(default_factory=list)
    seconds_phase1: float = 0.0
    seconds_phase2: float = 0.0
    slowest: list[tuple[float, str]] = field(default_factory=list)


# --- discovery ----------------------------------------------------------------------------


def python_files(root: Path, skip: set[Path]) -> list[str]:
    """Every ``.py`` file below ``root`` (symlinked directories not followed), relative."""
    found: list[str] = []
    for directory, subdirectories, files in os.walk(root, followlinks=False):
        here = Path(directory)
        subdirectories[:] = sorted(d for d in subdirectories
                                   if d != "__pycache__" and here / d not in skip)
        for name in files:
            if name.endswith(".py") and (here / name).is_file():
                found.append((here / name).relative_to(root).as_posix())
    return sorted(found)


# --- phase 1, one file at a time, each worker handed one file at a time ------------------------


def _worker(root: str, connection: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops us
    while True:
        try:
            index, path = connection.recv()
        except EOFError:
            return
        started = time.perf_counter()
        try:
            facts = _phase1_facts(Path(root), path)
            outcome = ("ok", json.dumps(facts_to_data(facts)))
        except BaseException:  # anything escaping phase 1 is an internal error
            outcome = ("crash", traceback.format_exc())
        connection.send((index, *outcome, time.perf_counter() - started))


def _phase1_facts(root: Path, path: str) -> FileFacts:
    """What the engine's phase 1 makes of one file, with the default settings."""
    try:
        source = (root / path).read_bytes()
    except OSError as error:
        return read_error(path, error)
    limit = Settings().max_file_size
    if len(source) > limit:
        return too_large(path, len(source), limit)
    return analyse_file(root, path, source)


class _Worker:
    """A process and the file it is working on: if it dies, that file is the culprit."""

    def __init__(self, root: Path) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_worker, args=(str(root), theirs), daemon=True)
        self.process.start()
        theirs.close()
        self.index: int | None = None
        self.since = 0.0

    def assign(self, index: int, path: str) -> None:
        self.connection.send((index, path))
        self.index, self.since = index, time.monotonic()

    def stop(self) -> None:
        self.connection.close()
        self.process.kill()
        self.process.join()


def run_phase1(root: Path, paths: list[str], jobs: int, timeout: float,
               result: CorpusResult) -> list[FileFacts]:
    from multiprocessing.connection import wait

    facts: dict[int, FileFacts] = {}
    times: list[tuple[float, str]] = []
    todo = list(range(len(paths)))[::-1]
    workers = [_Worker(root) for _ in range(min(jobs, len(paths)))]

    def next_file(worker: _Worker) -> None:
        if todo:
            index = todo.pop()
            worker.assign(index, paths[index])

    def replace(worker: _Worker, detail: str) -> None:
        assert worker.index is not None
        result.internal.append(InternalError("phase 1", paths[worker.index], detail))
        worker.stop()
        workers[workers.index(worker)] = fresh = _Worker(root)
        next_file(fresh)

    try:
        for worker in workers:
            next_file(worker)
        while any(w.index is not None for w in workers):
            busy = [w for w in workers if w.index is not None]
            wait([w.connection for w in busy] + [w.process.sentinel for w in busy], timeout=1)
            for worker in busy:
                if worker.connection.poll():
                    try:
                        index, status, payload, seconds = worker.connection.recv()
                    except EOFError:
                        replace(worker, f"worker died (exit status {worker.process.exitcode})")
                        continue
                    worker.index = None
                    times.append((seconds, paths[index]))
                    if status == "ok":
                        facts[index] = facts_from_data(json.loads(payload))
                    else:
                        result.internal.append(InternalError("phase 1", paths[index], payload))
                    next_file(worker)
                elif not worker.process.is_alive():
                    worker.process.join()
                    replace(worker, f"worker died (exit status {worker.process.exitcode})")
                elif time.monotonic() - worker.since > timeout:
                    replace(worker, f"still parsing after {timeout:.0f} s: worker stopped")
    finally:
        for worker in workers:
            worker.stop()
    result.slowest = sorted(times, reverse=True)[:5]
    return [facts[i] for i in sorted(facts)]


# --- phase 2 -------------------------------------------------------------------------------


def make_project(root: Path, files: list[FileFacts]) -> Project:
    names = {f.path: module_name_for(f.path, ("",))[0] for f in files}
    return Project(root=root, index=ProjectIndex(files, names))


def run_phase2(root: Path, files: list[FileFacts], rules: list[Rule],
               result: CorpusResult) -> None:
    project = make_project(root, files)
    raw: list[Diagnostic] = []
    for file in files:
        if file.error is not None:
            error = file.error
            raw.append(Diagnostic(Location(file.path, error.line, error.column, error.line,
                                           error.column), "LL000", "syntax-error", error.message))
    for rule in rules:
        try:
            raw.extend(rule.check(project))
        except Exception:
            result.internal.extend(_isolate(root, files, rule, traceback.format_exc()))
    active = {rule.code for rule in rules}
    names = {rule.code: rule.name for rule in rules}
    by_path = group_by_path(raw)
    kept: list[Diagnostic] = []
    for file in files:
        try:
            shown, _, problems = apply_suppressions(file, by_path.pop(file.path, []), active, names)
        except Exception:
            result.internal.append(InternalError("waivers", file.path, traceback.format_exc()))
            continue
        kept.extend(shown)
        kept.extend(problems)
    for leftover in by_path.values():
        kept.extend(leftover)
    result.diagnostics.update(d.code for d in kept)
    result.ll000 = sorted((d for d in kept if d.code == "LL000"), key=Diagnostic.sort_key)


def _isolate(root: Path, files: list[FileFacts], rule: Rule, whole: str) -> list[InternalError]:
    """The files that make ``rule`` raise on their own (or the whole-project failure)."""
    found = []
    for file in files:
        try:
            list(rule.check(make_project(root, [file])))
        except Exception:
            found.append(InternalError(f"rule {rule.code}", file.path, traceback.format_exc()))
    return found or [InternalError(f"rule {rule.code}", "(whole corpus)", whole)]


def all_rules_on(root: Path, table: dict[str, Any]) -> list[Rule]:
    settings = Settings.model_validate({"respect-gitignore": False})
    config = LoadedConfig(root=root, path=None, settings=settings, tool_table=table)
    return instantiate([*ENGINE_RULES, *shipped_rules()], config)


def sweep(name: str, root: Path, skip: set[Path], table: dict[str, Any], jobs: int,
          timeout: float) -> CorpusResult:
    result = CorpusResult(name, root)
    paths = python_files(root, skip)
    result.files = len(paths)
    print(f"{name}: {len(paths)} files under {root}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    files = run_phase1(root, paths, jobs, timeout, result)
    result.seconds_phase1 = time.perf_counter() - started
    started = time.perf_counter()
    run_phase2(root, files, all_rules_on(root, table), result)
    result.seconds_phase2 = time.perf_counter() - started
    return result


# --- fuzzing -------------------------------------------------------------------------------


def fuzz(examples: int, seed: int | None) -> tuple[int, list[str]]:
    """Run the suite's generated-module property for ``examples`` examples."""
    sys.path.insert(0, str(REPO / "tests"))
    from fuzz_support import run_property  # the strategies the test suite uses

    return run_property(examples, seed)


# --- the report ----------------------------------------------------------------------------


def table(results: list[CorpusResult]) -> str:
    codes = sorted({code for r in results for code in r.diagnostics})
    header = ["", *(r.name for r in results)]
    rows: list[list[str]] = [
        ["files", *(str(r.files) for r in results)],
        ["internal errors", *(str(len(r.internal)) for r in results)],
        *([code, *(str(r.diagnostics.get(code, 0)) for r in results)] for code in codes),
        ["phase 1 (s)", *(f"{r.seconds_phase1:.0f}" for r in results)],
        ["phase 2 (s)", *(f"{r.seconds_phase2:.1f}" for r in results)],
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for number, row in enumerate([header, *rows]):
        lines.append("  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i])
                               for i, cell in enumerate(row)).rstrip())
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def report(results: list[CorpusResult]) -> None:
    print(table(results))
    for r in results:
        print(f"\n{r.name}: files that could not be checked (LL000), {len(r.ll000)}")
        for d in r.ll000:
            print(f"  {d.path}:{d.location.line}:{d.location.column}: {d.message}")
        print(f"{r.name}: internal errors, {len(r.internal)}")
        for error in r.internal:
            last = error.detail.strip().splitlines()[-1] if error.detail.strip() else ""
            print(f"  [{error.where}] {error.path}: {last}")
        print(f"{r.name}: slowest files in phase 1")
        for seconds, path in r.slowest:
            print(f"  {seconds:7.1f} s  {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="more corpora (directories)")
    parser.add_argument("--no-stdlib", action="store_true")
    parser.add_argument("--no-site-packages", action="store_true")
    parser.add_argument("--jobs", type=int, default=max(1, len(os.sched_getaffinity(0))))
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds one file may take in phase 1 (default 600)")
    parser.add_argument("--fuzz", action="store_true", help="run the fuzz property instead")
    parser.add_argument("--examples", type=int, default=2000, help="fuzz examples (2000)")
    parser.add_argument("--seed", type=int, default=None, help="fuzz seed")
    parser.add_argument("--traceback", action="store_true",
                        help="print each internal error's whole traceback")
    args = parser.parse_args()
    for path in args.paths:
        # A sweep of nothing would read as a clean one.
        if not path.is_dir():
            parser.error(f"{path}: not a directory")

    if args.fuzz:
        failures, samples = fuzz(args.examples, args.seed)
        print(f"fuzz: {failures} propert{'y' if failures == 1 else 'ies'} failed")
        for sample in samples:
            print(sample)
        sys.exit(1 if failures else 0)

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    site = Path(sysconfig.get_paths()["purelib"])
    corpora: list[tuple[str, Path, set[Path], dict[str, Any]]] = []
    if not args.no_stdlib:
        corpora.append(("stdlib", stdlib, {site, stdlib / "site-packages"}, STDLIB_TABLE))
    if not args.no_site_packages:
        corpora.append(("site-packages", site, set(), SITE_TABLE))
    for path in args.paths:
        corpora.append((path.name or str(path), path.resolve(), set(), {}))
    results = [sweep(name, root, skip, table_, args.jobs, args.timeout)
               for name, root, skip, table_ in corpora]
    print(f"python {sys.version.split()[0]}, {args.jobs} jobs")
    report(results)
    if args.traceback:
        for r in results:
            for error in r.internal:
                print(f"\n--- {r.name} [{error.where}] {error.path}\n{error.detail}")
    sys.exit(1 if any(r.internal for r in results) else 0)


if __name__ == "__main__":
    main()
