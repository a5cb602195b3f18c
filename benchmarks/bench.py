"""lion-lint's benchmark: cold, warm and one-file-changed runs against LibCST's parse floor.

    python benchmarks/bench.py [PATH ...] [--runs N] [--jobs N] [--json FILE]

Each corpus (by default the running interpreter's standard library, without
site-packages; each PATH adds one, e.g. a LionAGI checkout) is copied into a temporary
project (a package under its own name, so that its imports still name its modules), so
nothing of yours is touched and every figure covers exactly the same files.
For each corpus, in one run so that the ratios are fair, it measures (medians of --runs
runs, with min and max):

  parse floor   LibCST ``parse_module`` over every file, one process, nothing else
  cold          ``lion-lint`` with every rule selected, empty cache, default jobs
  warm          the same again, nothing changed
  changed       after a content change to one mid-size file (a new one each run)
  recheck       the changed run again with its stored result removed and the file
                touched: every file's facts are in the cache, so the run loads them,
                rebuilds the index and runs the rules, parsing nothing (what a changed run
                does besides parsing its file; ``changed - recheck`` is what the edit
                itself costs)
  revisit       that file as it was again: a state linted before (a branch checked out
                again, an edit undone), whose stored result answers
  editor        that file, with an edit not saved, linted as an editor's buffer
                (--stdin-filename), which is never replayed: the project's facts from the
                cache, the buffer parsed, the rules on the whole index, reporting on that
                file (a buffer that is the file as saved would be the file's own run)
  hook          that file with a new edit saved, linted as the pre-commit hook lints a
                commit of it (``--force-exclude`` and the file named): what a commit of
                one edited file waits for
  turns         the whole project's run again, nothing changed since it caught up with
                that edit, but the hook's run came in between: a checkout where the hook
                and a shell's ``lion-lint src/`` take turns
  --version     ``lion-lint --version``

plus the peak memory of a further cold run (of the largest process and of the process
tree's total, sampled every 20 ms, apart from the timed runs, which the sampling would
slow; beside the tree's summed RSS, which counts each page the workers share with the
process they were forked from once per process, its proportional set size, which counts
it once), files and MB per second, and the issue's targets met or not. The times are
wall-clock times of the real command, interpreter start-up included. The load
average before and after is printed: figures taken on a busy machine say little.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

PYPROJECT = "[tool.lion-lint]\nrespect-gitignore = false\n"
#: Times LibCST's parse of files given on stdin (one path a line); prints the seconds.
PARSE_FLOOR = """
import sys, time
import libcst
paths = sys.stdin.read().splitlines()
sources = [open(p, "rb").read() for p in paths]
start = time.perf_counter()
for source in sources:
    try:
        libcst.parse_module(source)
    except Exception:
        pass
print(time.perf_counter() - start)
"""


@dataclass
class Series:
    """Wall times of repeated runs of one measurement."""

    values: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def show(self) -> str:
        return (f"{self.median:8.3f} s  (min {min(self.values):.3f}, max {max(self.values):.3f},"
                f" n={len(self.values)})")


def lion_lint(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "lintkit", *map(str, args)]


def timed(command: list[str], cwd: Path, memory: bool = False,
          stdin: bytes | None = None) -> tuple[float, int, int, int, int]:
    """Run a command (given ``stdin``, if any); its wall time, exit status, and the peak RSS
    of its largest process and of its process tree, and the tree's peak PSS (bytes,
    sampled; 0 when not measured)."""
    sampler = _TreeSampler() if memory else None
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE)
    if sampler is not None:
        sampler.start(process.pid)
    _, stderr = process.communicate(stdin)
    elapsed = time.perf_counter() - start
    largest, tree, proportional = sampler.stop() if sampler is not None else (0, 0, 0)
    if process.returncode not in (0, 1):
        sys.exit(f"bench: {' '.join(command)} exited {process.returncode}:\n"
                 f"{stderr.decode(errors='replace')}")
    return elapsed, process.returncode, largest, tree, proportional


class _TreeSampler:
    """Peak RSS of the largest process and of the summed process tree (a process and its
    descendants), sampled every 20 ms from Linux's /proc (elsewhere: 0), and the tree's
    peak PSS.

    Reading a process's PSS walks its page tables (about 1 ms for 300 MB), which would
    take a tenth of a core from the run measured if done at every sample: it is read only
    while the summed RSS is within a tenth of its peak so far, where the PSS peaks too."""

    def __init__(self) -> None:
        self.largest = 0
        self.peak = 0
        self.proportional = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, pid: int) -> None:
        if not Path("/proc/self/stat").exists():
            return
        self._thread = threading.Thread(target=self._run, args=(pid,), daemon=True)
        self._thread.start()

    def stop(self) -> tuple[int, int, int]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return self.largest, self.peak, self.proportional

    def _run(self, root: int) -> None:
        page = os.sysconf("SC_PAGE_SIZE")
        while not self._stop.wait(0.02):
            parents: dict[int, int] = {}
            rss: dict[int, int] = {}
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/stat", "rb") as stream:
                        fields = stream.read().rsplit(b")", 1)[1].split()
                except OSError:
                    continue
                parents[int(entry)] = int(fields[1])
                rss[int(entry)] = int(fields[21]) * page
            tree, grew = {root}, True
            while grew:
                grew = False
                for pid, parent in parents.items():
                    if parent in tree and pid not in tree:
                        tree.add(pid)
                        grew = True
            sizes = [rss.get(pid, 0) for pid in tree]
            total = sum(sizes)
            self.largest = max(self.largest, *sizes)
            self.peak = max(self.peak, total)
            if total * 10 >= self.peak * 9:
                self.proportional = max(self.proportional,
                                        sum(_proportional_size(pid) for pid in tree))


def _proportional_size(pid: int) -> int:
    """A process's PSS in bytes (0 if it has ended or the kernel does not say)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as stream:
            for line in stream:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def corpus_files(source: Path) -> list[str]:
    """The Python files lion-lint would lint under ``source`` (relative, sorted)."""
    from lintkit.config.model import Settings
    from lintkit.engine.discovery import discover

    settings = Settings(respect_gitignore=False, extend_exclude=("site-packages",))
    return discover(source, settings, split_nested=False)[0]


def positive_count(text: str) -> int:
    """An argparse type for --runs: a count of at least one (a median of nothing is none)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def check_corpus(parser: argparse.ArgumentParser, path: Path) -> None:
    """Exit with a usage error unless ``path`` is a directory with Python files to lint."""
    if not path.is_dir():
        parser.error(f"{path}: not a directory")
    if not corpus_files(path.resolve()):
        parser.error(f"{path}: no Python files to lint")


def build_corpus(source: Path, destination: Path) -> list[str]:
    """Copy the Python files lion-lint would lint under ``source``; their paths in the copy.

    A package (``source`` holds an ``__init__.py``, as a checkout's ``lionagi/`` does) is
    copied under its own name, so that its modules keep the names they import each other
    by (``lionagi.protocols...``): copied bare, every absolute import of the package would
    name a module outside the project, and the rules would see few of its links."""
    within = source.name if (source / "__init__.py").is_file() else ""
    paths = []
    for relative in corpus_files(source):
        path = f"{within}/{relative}" if within else relative
        target = destination / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / relative, target)
        paths.append(path)
    (destination / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return paths


def parse_floor(root: Path, paths: list[str]) -> float:
    done = subprocess.run([sys.executable, "-c", PARSE_FLOOR], input="\n".join(
        str(root / p) for p in paths), capture_output=True, text=True, check=True)
    return float(done.stdout.strip())


def forget_latest_result(root: Path) -> None:
    """Remove the project's latest stored result (the cache keeps the results of its last
    runs, one file each), so that the same files make phase 2 run again."""
    stored = list((root / ".lion-lint-cache").glob("results-*/*/*.json"))
    if stored:
        max(stored, key=lambda path: path.stat().st_mtime_ns).unlink()


def mid_size_file(root: Path, paths: list[str]) -> str:
    """The file at the median size among files of at least 1 KB."""
    sized = sorted((os.path.getsize(root / p), p) for p in paths)
    sized = [entry for entry in sized if entry[0] >= 1024] or sized
    return sized[len(sized) // 2][1]


def bench_corpus(name: str, source: Path, runs: int, jobs: int | None,
                 workdir: Path) -> dict[str, object]:
    root = workdir / name
    root.mkdir(parents=True)
    paths = build_corpus(source, root)
    size = sum(os.path.getsize(root / p) for p in paths)
    options = ["--select", "LL", "--output-format", "concise", "--quiet"]
    if jobs is not None:
        options += ["--jobs", str(jobs)]
    check = ["check", ".", *options]
    print(f"\n== {name}: {source} ({len(paths)} files, {size / 1e6:.1f} MB)", flush=True)

    floor, cold, warm, changed, version = Series(), Series(), Series(), Series(), Series()
    recheck, revisit, editor, hook, turns = Series(), Series(), Series(), Series(), Series()
    changed_file = mid_size_file(root, paths)
    changed_parse = Series()
    for run in range(runs):
        floor.values.append(parse_floor(root, paths))
        changed_parse.values.append(parse_floor(root, [changed_file]))
        shutil.rmtree(root / ".lion-lint-cache", ignore_errors=True)
        elapsed, status, *_ = timed(lion_lint(*check), root)
        cold.values.append(elapsed)
        print(f"  run {run + 1}/{runs}: floor {floor.values[-1]:.2f} s, cold {elapsed:.2f} s "
              f"(exit {status})", flush=True)
    # Memory from a cold run of its own: the sampler takes some 7 % of a core, which the
    # timed runs, using both cores, would lose.
    shutil.rmtree(root / ".lion-lint-cache", ignore_errors=True)
    _, _, largest, tree, proportional = timed(lion_lint(*check), root, memory=True)
    original = (root / changed_file).read_bytes()
    for run in range(runs):
        warm.values.append(timed(lion_lint(*check), root)[0])
        edited = original + f"\n# bench edit {run}\n".encode()
        (root / changed_file).write_bytes(edited)
        changed.values.append(timed(lion_lint(*check), root)[0])
        forget_latest_result(root)
        (root / changed_file).write_bytes(edited)  # touched: the replay note misses too
        recheck.values.append(timed(lion_lint(*check), root)[0])
        (root / changed_file).write_bytes(original)
        revisit.values.append(timed(lion_lint(*check), root)[0])
    for _ in range(runs):
        buffer = lion_lint("check", *options, "--stdin-filename", changed_file, "-")
        unsaved = original + b"\n# an edit not saved\n"
        editor.values.append(timed(buffer, root, stdin=unsaved)[0])
    committed = lion_lint("check", *options, "--force-exclude", changed_file)
    for run in range(runs):
        (root / changed_file).write_bytes(original + f"\n# bench hook edit {run}\n".encode())
        hook.values.append(timed(committed, root)[0])
        timed(lion_lint(*check), root)  # the shell's run catches up with the edit
        timed(committed, root)
        turns.values.append(timed(lion_lint(*check), root)[0])
    (root / changed_file).write_bytes(original)
    for _ in range(max(runs, 10)):
        version.values.append(timed(lion_lint("--version"), root)[0])

    megabytes = size / 1e6
    changed_budget = warm.median + 1.5 * changed_parse.median
    print(f"  parse floor  {floor.show()}   {megabytes / floor.median:6.2f} MB/s  "
          f"{len(paths) / floor.median:7.1f} files/s")
    print(f"  cold         {cold.show()}   {megabytes / cold.median:6.2f} MB/s  "
          f"{len(paths) / cold.median:7.1f} files/s")
    print(f"  warm         {warm.show()}")
    print(f"  changed      {changed.show()}   ({changed_file}: "
          f"{os.path.getsize(root / changed_file) / 1e3:.1f} KB, parses in "
          f"{changed_parse.median:.3f} s)")
    print(f"  recheck      {recheck.show()}   (nothing parsed: the facts loaded, the index "
          f"and the rules rerun)")
    print(f"  revisit      {revisit.show()}   (the file as it was: a state linted before)")
    print(f"  editor       {editor.show()}   (the same file, edited, as an unsaved buffer)")
    print(f"  hook         {hook.show()}   (the same file, edited and saved, as the "
          f"pre-commit hook names it)")
    print(f"  turns        {turns.show()}   (the whole project again, nothing changed, after "
          f"the hook's run)")
    print(f"  --version    {version.show()}")
    print(f"  cold peak RSS (sampled, a run of its own): largest process "
          f"{largest / 2**20:.0f} MB, process tree {tree / 2**20:.0f} MB "
          f"(PSS {proportional / 2**20:.0f} MB)")
    print(f"  ratios: cold / floor {cold.median / floor.median:.2f}   "
          f"warm / cold {warm.median / cold.median:.3f}   "
          f"changed / (warm + 1.5 x its parse) {changed.median / changed_budget:.2f}")
    print(f"  the edit's own cost: changed - recheck {changed.median - recheck.median:+.3f} s "
          f"(its parse {changed_parse.median:.3f} s)")
    return {
        "corpus": name, "source": str(source), "files": len(paths), "bytes": size,
        "parse_floor": floor.values, "cold": cold.values, "warm": warm.values,
        "changed": changed.values, "recheck": recheck.values, "revisit": revisit.values,
        "changed_file": changed_file,
        "changed_file_parse": changed_parse.values, "editor": editor.values,
        "hook": hook.values, "turns": turns.values,
        "version": version.values,
        "cold_largest_rss": largest, "cold_tree_rss": tree, "cold_tree_pss": proportional,
    }


def targets(results: list[dict[str, object]]) -> None:
    """The issue's targets, judged on these figures."""
    print("\n== targets")
    for result in results:
        med = {key: statistics.median(result[key]) for key in  # type: ignore[call-overload]
               ("parse_floor", "cold", "warm", "changed", "changed_file_parse", "version")}
        checks = [
            ("cold <= 0.6 x parse floor", med["cold"] <= 0.6 * med["parse_floor"],
             f"{med['cold'] / med['parse_floor']:.2f} x"),
            ("changed <= warm + 1.5 x its parse",
             med["changed"] <= med["warm"] + 1.5 * med["changed_file_parse"],
             f"{med['changed']:.3f} s vs {med['warm'] + 1.5 * med['changed_file_parse']:.3f} s"),
            ("--version <= 0.15 s", med["version"] <= 0.15, f"{med['version']:.3f} s"),
        ]
        if result["corpus"] == "stdlib":
            checks += [
                ("warm <= 3% of cold", med["warm"] <= 0.03 * med["cold"],
                 f"{100 * med['warm'] / med['cold']:.1f} %"),
                ("cold peak RSS <= 300 MB", int(result["cold_tree_rss"] or result[  # type: ignore[call-overload]
                    "cold_largest_rss"]) <= 300 * 2**20,
                 f"{int(result['cold_tree_rss'] or result['cold_largest_rss']) / 2**20:.0f} MB"),  # type: ignore[call-overload]
            ]
        # Judged on any corpus of that size or larger: a warm run's work grows with the
        # files, so one that meets the bound on more files meets it on 600.
        if int(result["files"]) >= 400:  # type: ignore[call-overload]
            checks.append(("warm <= 0.4 s (a project of about 600 files)",
                           med["warm"] <= 0.4, f"{med['warm']:.3f} s ({result['files']} files)"))
        for label, met, figure in checks:
            print(f"  {result['corpus']:<10} {'met   ' if met else 'MISSED'} {label:<46} {figure}")


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    import importlib.metadata

    return (f"{model}, {cores} usable cores, {platform.system()} {platform.release()}; Python "
            f"{platform.python_version()}, libcst {importlib.metadata.version('libcst')}, "
            f"lion-lint {importlib.metadata.version('lion-lint')}")


def compile_lion_lint() -> None:
    """Write lion-lint's bytecode first, as its first run would: where the environment says
    not to (PYTHONDONTWRITEBYTECODE), every run would otherwise compile it afresh."""
    import compileall

    import lion_lint.rules
    import lintkit

    for package in (lintkit, lion_lint.rules):
        compileall.compile_dir(Path(package.__file__).parent, quiet=2)


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path,
                        help="more corpora (directories of Python code)")
    parser.add_argument("--runs", type=positive_count, default=3, help="runs per measurement (default 3)")
    parser.add_argument("--jobs", type=int, default=None, help="--jobs for lion-lint")
    parser.add_argument("--no-stdlib", action="store_true", help="skip the standard library")
    parser.add_argument("--json", type=Path, help="also write the raw figures here")
    options = parser.parse_args()
    for path in options.paths:
        # Found before the standard library's minutes of runs, not after them.
        check_corpus(parser, path)
    corpora: list[tuple[str, Path]] = []
    if not options.no_stdlib:
        corpora.append(("stdlib", Path(sysconfig.get_paths()["stdlib"])))
    corpora += [(path.resolve().name or "corpus", path.resolve()) for path in options.paths]
    print(f"lion-lint benchmark on {machine()}")
    compile_lion_lint()
    print(f"before: {load()}")
    results = []
    names: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="lion-lint-bench-") as directory:
        for name, source in corpora:
            unique = name
            while unique in names:
                unique += "+"
            names.add(unique)
            results.append(bench_corpus(unique, source, options.runs, options.jobs,
                                        Path(directory)))
    print(f"\nafter: {load()}")
    targets(results)
    if options.json:
        options.json.write_text(json.dumps({"machine": machine(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
