"""Memory: the engine runs with the cyclic garbage collector paused, so the code it runs
must not leave reference cycles behind (each one would live until the run ends).

On the standard library, a recursive helper closure in the index once left some 500 MB
of cycles behind in phase 2.
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lintkit.cli.compose import compose
from lintkit.engine.memory import _malloc_trim, libc_function
from lintkit.engine.run import RunOptions, lint_paths
from tests.phase1_support import add_local_rule, make_project, run

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "lionish"


def test_phase2_leaves_no_cyclic_garbage(tmp_path: Path) -> None:
    project = tmp_path / "lionish"
    shutil.copytree(EXAMPLE, project)
    options = RunOptions(use_cache=True)
    lint_paths([project], None, compose, options)  # fills the facts cache: no parsing below
    for stored in (project / ".lion-lint-cache").glob("results-*"):
        shutil.rmtree(stored)  # so the rules run again rather than replay
    gc.collect()
    gc.disable()
    try:
        results = lint_paths([project], None, compose, options)
        garbage = gc.collect()
    finally:
        gc.enable()
    codes = {d.code for result in results for d in result.diagnostics}
    assert {"LL001", "LL002", "LL003", "LL004"} <= codes  # every project rule ran
    assert garbage == 0


def _indexes_alive() -> int:
    from lintkit.core.index import ProjectIndex

    # By type: a weak proxy to an index (the import graph holds one) passes isinstance.
    return sum(type(o) is ProjectIndex for o in gc.get_objects())


def test_a_run_keeps_nothing_of_its_project_once_its_results_are_dropped(tmp_path: Path) -> None:
    """The import graph is shared by the rules of a run through a table keyed weakly by
    the index; the graph once held its index, so every project linted in a process stayed
    in memory until the process ended (the LionAGI checkout's facts: 0.25 s to free at
    exit)."""
    project = tmp_path / "lionish"
    shutil.copytree(EXAMPLE, project)
    before = _indexes_alive()
    results = lint_paths([project], None, compose, RunOptions())
    assert "LL004" in {d.code for result in results for d in result.diagnostics}  # the graph was built
    del results
    assert _indexes_alive() == before


def test_keep_project_keeps_the_last_project_only(tmp_path: Path) -> None:
    """What the CLI asks for (it ends the process next, and freeing is wasted work): the
    last project's facts stay in its result; with nested projects, one at a time."""
    outer = tmp_path / "outer"
    shutil.copytree(EXAMPLE, outer)
    shutil.copytree(EXAMPLE, outer / "inner")
    before = _indexes_alive()
    results = lint_paths([outer], None, compose, RunOptions(keep_project=True))
    assert [r.root for r in results] == [outer, outer / "inner"]
    first, last = (r.project for r in results)
    assert first is None
    assert last is not None and last.root == outer / "inner"
    assert "lionish.ops.dispatch" in last.index.modules
    assert _indexes_alive() == before + 1
    del results, last
    assert _indexes_alive() == before
    assert lint_paths([outer / "inner"], None, compose, RunOptions())[0].project is None


_NOTES_ITS_FREEING = """\
    def __del__(self):
        with open(__file__ + ".freed", "a") as note:
            note.write("freed")

    def check(self, project):"""


def test_the_command_line_ends_without_freeing_what_the_run_made(tmp_path: Path) -> None:
    """Freeing a project object by object only delays the exit (a quarter of a second on
    the standard library): the command line's process ends with everything still alive.
    A rule instance that notes when it is freed is never freed."""
    make_project(tmp_path)
    rule = add_local_rule(tmp_path)
    rule.write_text(rule.read_text().replace("    def check(self, project):", _NOTES_ITS_FREEING))
    result = run("check", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1 and "LL001" in result.stdout, result.stderr
    assert not (tmp_path / "tools/house.py.freed").exists()


# Scattered frees, as a parse leaves them: one block in eight stays alive, so the C heap
# cannot shrink from its top and glibc keeps the pages in between.
_FRAGMENTED_HEAP = """
import os
from lintkit.engine.memory import release_free_memory

def resident_mb():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20

blocks = [bytearray(4000) for _ in range(40_000)]
kept = blocks[::8]
del blocks
print(resident_mb())
release_free_memory()
print(resident_mb())
"""


@pytest.mark.skipif(_malloc_trim() is None, reason="only glibc hands freed pages back on request")
def test_a_worker_hands_freed_memory_back_to_the_system() -> None:
    """A worker that parsed a large module would otherwise hold its peak to the end."""
    output = subprocess.run([sys.executable, "-c", _FRAGMENTED_HEAP], capture_output=True,
                            text=True, check=True).stdout
    before, after = map(int, output.split())
    assert before - after > 80  # MB: of the 160 MB allocated, 140 MB were freed


# A worker's next batch after a large result: the pool pickled and sent the texts once the
# task returned, and their memory is free but kept. What the first file of the batch finds.
_NEXT_BATCH = _FRAGMENTED_HEAP.split("print(resident_mb())")[0] + """
import sys
from pathlib import Path
from lintkit.engine import workers

root = Path(sys.argv[1])
found = []
extract_each = workers.extract_each

def first_file_finds(root, batch, cache, **options):
    found.append(resident_mb())
    yield from extract_each(root, batch, cache, **options)

workers.extract_each = first_file_finds
before = resident_mb()
texts = workers._extract_batch(root, [workers.Work(0, "m.py", 20, None, False)], None)
assert len(texts) == 1 and "g" in texts[0][1]
print(before, found[0])
"""


@pytest.mark.skipif(_malloc_trim() is None, reason="only glibc hands freed pages back on request")
def test_a_worker_hands_back_the_last_batchs_memory_before_the_next(tmp_path: Path) -> None:
    """Small files never trim one by one: without this, the whole batch ran at the high
    water mark the previous batch's result left."""
    (tmp_path / "m.py").write_text("def f():\n    return g(1)\n")
    output = subprocess.run([sys.executable, "-c", _NEXT_BATCH, str(tmp_path)],
                            capture_output=True, text=True, check=True).stdout
    before, at_first_file = map(int, output.split())
    assert before - at_first_file > 80  # MB: of the 160 MB allocated, 140 MB were freed


def test_the_parsers_freed_memory_is_handed_back_before_facts_are_taken() -> None:
    """LibCST's parser frees its native working memory once the tree is built; phase 1
    hands it back then (for large files), so the facts do not pile on top of its peak."""
    from lintkit.parsing.extract import extract

    seen: list[int] = []
    facts = extract("m.py", b"def f():\n    return g(1)\n", False,
                    after_parse=lambda: seen.append(len(seen)))
    assert seen == [0] and [c.func for c in facts.calls] == ["g"]
    broken = extract("m.py", b"def f(:\n", False, after_parse=lambda: seen.append(len(seen)))
    assert broken.error is not None and seen == [0]  # no tree, nothing to hand back


# Phase 1 through the worker pool, then the number of arenas glibc's malloc_stats reports.
_POOL_RUN = """
import ctypes, os, sys
from pathlib import Path
from lintkit.engine.phase1 import Phase1Options, run_phase1

root = Path(sys.argv[1])
paths = sorted(p.name for p in root.glob("*.py"))
result = run_phase1(root, paths, {}, Phase1Options(jobs=2))
assert result.workers == 2 and all(f.error is None for f in result.facts)
read, write = os.pipe()
os.dup2(write, 2)
ctypes.CDLL(None).malloc_stats()
os.close(2)
os.close(write)
print(os.read(read, 1 << 16).decode().count("Arena "))
"""


def _arenas_after_a_pool_run(project: Path, **env: str) -> int:
    for number in range(12):
        body = "".join(f"def f{number}_{i}(x):\n    return g(x, {i}) + h(x)\n\n"
                       for i in range(300))
        (project / f"m{number}.py").write_text(body)
    environment = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    output = subprocess.run([sys.executable, "-c", _POOL_RUN, str(project)], check=True,
                            capture_output=True, text=True, env={**environment, **env}).stdout
    return int(output)


@pytest.mark.skipif(libc_function("malloc_stats") is None, reason="glibc's arenas only")
def test_the_pools_results_are_received_into_the_main_arena(tmp_path: Path) -> None:
    """The pool's receiving thread would get an arena of its own, whose freed top glibc
    never hands back (45 MB of the standard library's cold run)."""
    assert _arenas_after_a_pool_run(tmp_path) == 1


@pytest.mark.skipif(libc_function("malloc_stats") is None, reason="glibc's arenas only")
def test_a_malloc_arena_max_in_the_environment_is_left_alone(tmp_path: Path) -> None:
    assert _arenas_after_a_pool_run(tmp_path, MALLOC_ARENA_MAX="4") > 1


def test_forgetting_resolutions_between_rules_changes_no_diagnostic(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine drops the index's memoised resolutions after each rule (for memory); the
    next rule asks afresh and must get the same answers."""
    from lintkit.core.index import ProjectIndex

    project = tmp_path / "lionish"
    shutil.copytree(EXAMPLE, project)

    def diagnostics() -> list[object]:
        results = lint_paths([project], None, compose, RunOptions())
        return [d.to_data() for result in results for d in result.diagnostics]

    forgetting = diagnostics()
    monkeypatch.setattr(ProjectIndex, "forget_resolutions", lambda self: None)
    keeping = diagnostics()
    assert keeping == forgetting
    assert {"LL001", "LL002", "LL003", "LL004"} <= {d["code"] for d in keeping}  # type: ignore[index]
