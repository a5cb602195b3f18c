"""Memory: the engine runs with the cyclic garbage collector paused, so the code it runs
must not leave reference cycles behind (each one would live until the run ends).

On the standard library, a recursive helper closure in the index once left some 500 MB
of cycles behind in phase 2.
"""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

from lintkit.cli.compose import compose
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
