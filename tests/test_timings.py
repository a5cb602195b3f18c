"""``check --timings``: each step of the run, timed, on standard error; the report untouched.

Each test runs the real command on a real project in a temporary directory (one LL001
finding, one waived, one syntax error: see ``make_project``). The figures themselves vary;
what is asserted is which steps are listed, what they say they did, and that the report
on standard output is the same bytes with and without the option.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from lintkit.cli.compose import compose
from lintkit.engine.projects import RunOptions
from lintkit.engine.replay import replay
from lintkit.engine.run import lint_paths
from lintkit.engine.workers import usable_cores
from tests.phase1_support import make_project, run

#: Where a changed file or an editor's buffer is parsed ahead in a child (see ahead.py).
FORKS = sys.platform.startswith("linux") and usable_cores() > 1

#: A timed step: its name, its seconds, what it did.
STEP = re.compile(r"^ {4}(\S+(?: \d)?) +(\d+\.\d{3})  (.*)$")


def _steps(stderr: str) -> dict[str, str]:
    """The project's steps, each with what it says it did."""
    return {m[1]: m[3] for m in map(STEP.match, stderr.splitlines()) if m}


def _replay_line(stderr: str) -> str:
    return next((line.split("not possible: ", 1)[1] for line in stderr.splitlines()
                 if line.startswith("  replay ")), "")


def test_a_full_run_times_each_step_and_each_rule(tmp_path: Path) -> None:
    make_project(tmp_path)
    done = run("check", "--output-format", "concise", "--timings", cwd=tmp_path)

    assert done.returncode == 1
    assert done.stderr.startswith("lion-lint: timings (seconds)\n")
    steps = _steps(done.stderr)
    assert list(steps) == ["configuration", "survey", "results", "phase 1", "index",
                           "LL001", "LL002", "LL003", "LL004", "LL005", "settle"]
    assert steps["LL001"] == "structural-eq"
    assert steps["results"] == "none stored for these files and rules"
    files = len(list(tmp_path.rglob("*.py")))
    assert steps["survey"] == f"{files} files"
    assert steps["phase 1"].startswith(f"0 from the cache, {files} parsed")
    assert _replay_line(done.stderr) == f"{tmp_path}: no replay note (a first run here, or " \
                                        "the cache was cleared)"
    assert re.search(r"^  imports +\d+\.\d{3}  ", done.stderr, re.M)
    assert re.search(r"^  total +\d+\.\d{3}  since the command started$", done.stderr, re.M)


def test_the_report_is_the_same_bytes_with_and_without_timings(tmp_path: Path) -> None:
    make_project(tmp_path)
    for output in ("concise", "json", "full"):
        plain = run("check", "--no-cache", "--output-format", output, cwd=tmp_path)
        timed = run("check", "--no-cache", "--output-format", output, "--timings",
                    cwd=tmp_path)
        assert (timed.returncode, timed.stdout) == (plain.returncode, plain.stdout)
        assert "timings" not in plain.stderr and "timings" in timed.stderr
        if output == "json":
            assert json.loads(timed.stdout)["diagnostics"]


def test_timings_say_whether_and_why_not_the_last_result_was_replayed(tmp_path: Path) -> None:
    make_project(tmp_path)
    args = ("check", "--output-format", "concise", "--timings")
    run(*args, cwd=tmp_path)

    replayed = run(*args, cwd=tmp_path)
    assert _replay_line(replayed.stderr) == ""
    assert list(_steps(replayed.stderr)) == ["replay"], "a replay runs no step of its own"
    assert "imports" not in replayed.stderr

    bad = tmp_path / "src/pkg/bad.py"
    bad.write_text(bad.read_text() + "\n# an edit\n")
    edited = run(*args, cwd=tmp_path)
    assert _replay_line(edited.stderr) == \
        f"{tmp_path}: 1 file changed since the last run" + (", parsed ahead" if FORKS else "")
    assert edited.stdout == replayed.stdout

    other = run(*args, "--select", "LL001", cwd=tmp_path)
    assert _replay_line(other.stderr).startswith(f"{tmp_path}: invoked otherwise than the "
                                                 "last run")
    assert [s for s in _steps(other.stderr) if s.startswith("LL")] == ["LL001"]


def test_an_editor_buffer_is_timed_and_never_replayed(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", "--output-format", "concise", cwd=tmp_path)
    source = (tmp_path / "src/pkg/bad.py").read_bytes() + b"\n# not saved\n"
    done = run("check", "--output-format", "concise", "--timings", "--stdin-filename",
               "src/pkg/bad.py", "-", cwd=tmp_path, stdin=source)

    assert _replay_line(done.stderr) == "an editor's unsaved buffer is never replayed"
    steps = _steps(done.stderr)
    assert steps["results"] == "not looked up (an editor's buffer, or the cache is off)"
    assert steps["phase 1"].endswith("; 1 parsed ahead in a child") == FORKS
    assert re.search(r"^  \. \(1 file checked\)$", done.stderr, re.M)


@pytest.mark.skipif(not FORKS, reason="files are parsed ahead only where forking is cheap, "
                                        "on more than one core")
def test_a_file_parsed_ahead_counts_so_even_when_the_child_stored_it_first(
        tmp_path: Path) -> None:
    make_project(tmp_path)
    options = RunOptions(use_cache=True, jobs=2)
    lint_paths([tmp_path], None, compose, options)
    bad = tmp_path / "src/pkg/bad.py"
    bad.write_text(bad.read_text() + "\n# an edit\n")
    missed = replay([tmp_path], None, options)
    assert missed.missed == f"{tmp_path}: 1 file changed since the last run, parsed ahead"
    assert missed.ahead is not None
    missed.ahead.wait()  # stored: the full run finds it in the cache, not waiting for it
    [result] = lint_paths([tmp_path], None, compose, replace(options, parsed_ahead=missed.ahead))
    phase = {t.step: t.detail for t in result.timings}["phase 1"]
    files = len(list(tmp_path.rglob("*.py")))
    assert phase == f"{files} from the cache, 0 parsed; 1 parsed ahead in a child"
