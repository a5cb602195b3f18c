"""Memory: the engine runs with the cyclic garbage collector paused, so the code it runs
must not leave reference cycles behind (each one would live until the run ends).

On the standard library, a recursive helper closure in the index once left some 500 MB
of cycles behind in phase 2.
"""

from __future__ import annotations

import gc
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lintkit.cli.compose import compose
from lintkit.engine.phase1 import _malloc_trim
from lintkit.engine.run import RunOptions, lint_paths

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


# Scattered frees, as a parse leaves them: one block in eight stays alive, so the C heap
# cannot shrink from its top and glibc keeps the pages in between.
_FRAGMENTED_HEAP = """
import os
from lintkit.engine.phase1 import release_free_memory

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
