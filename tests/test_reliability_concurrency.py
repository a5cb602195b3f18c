"""Two runs at once (pre-commit can start them), Ctrl-C and SIGTERM.

Two lion-lint processes on one project, sharing its cache, both print exactly what a run
without the cache prints, and leave a cache from which every file is served intact. Ctrl-C
(SIGINT to the whole process group, as a terminal sends it) stops the run and its worker
processes promptly, with exit status 130 and no traceback, and leaves nothing broken;
SIGTERM to the run alone (a CI timeout) does the same with status 143, and workers never
outlive a run killed outright.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_support import many_bad_files

from lintkit.config.model import Settings
from lintkit.engine import phase1
from lintkit.engine.discovery import discover

FILES = 60


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "lintkit", *args]


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}


def _reference(root: Path) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(_command(".", "--no-cache", "--output-format", "json"), cwd=root,
                          capture_output=True, env=_environment(), timeout=600)
    assert done.returncode == 1, done.stderr
    return done


def _served_from_cache(root: Path) -> int:
    """How many files the project's cache serves (each entry verified in full on load)."""
    settings = Settings(respect_gitignore=False)
    paths, _ = discover(root, settings)
    options = phase1.options_for(root, settings, use_cache=True, jobs=1)
    result = phase1.run_phase1(root, paths, {}, options, settings=settings)
    assert not result.parsed, f"not served from the cache: {result.parsed}"
    return result.from_cache


def _session_processes(session: int) -> list[int]:
    """The live processes of a session (the run and any worker it started)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":  # fields: state, ppid, pgrp, sid
            found.append(int(entry.name))
    return found


def test_two_runs_at_once_agree_and_leave_an_intact_cache(tmp_path: Path) -> None:
    many_bad_files(tmp_path, FILES)
    expected = _reference(tmp_path)
    for round_ in ("cold cache", "warm cache"):
        runs = [subprocess.Popen(_command(".", "--output-format", "json", "--jobs", jobs),
                                 cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 env=_environment())
                for jobs in ("2", "1")]
        for process in runs:
            out, err = process.communicate(timeout=600)
            assert (process.returncode, err) == (1, b""), (round_, err)
            assert out == expected.stdout, round_
    assert _served_from_cache(tmp_path) == FILES + 5  # and the base project's five files
    # The project's stored result is whole, and a replay of it is the reference output.
    [entry] = (tmp_path / ".lion-lint-cache").glob("results-*/*/*.json")
    assert json.loads(entry.read_bytes())["diagnostics"]
    replay = subprocess.run(_command(".", "--output-format", "json"), cwd=tmp_path,
                            capture_output=True, env=_environment(), timeout=600)
    assert (replay.returncode, replay.stdout) == (1, expected.stdout)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_with_workers(root: Path, args: list[str]) -> subprocess.Popen[bytes]:
    """Start a run in a session of its own; return once its workers are parsing."""
    # Started as a terminal starts it, with SIGINT at its default: a test runner launched as a
    # background job of a non-interactive shell inherits SIGINT ignored, and a process that
    # starts with SIGINT ignored rightly keeps ignoring it (nohup relies on that), so the
    # run would finish as if never interrupted.
    run = subprocess.Popen(_command(*args), cwd=root, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=_environment(), start_new_session=True,
                           preexec_fn=_default_sigint)
    deadline = time.monotonic() + 120
    while len(_session_processes(run.pid)) < 2 and run.poll() is None:
        if time.monotonic() > deadline:
            os.killpg(run.pid, signal.SIGKILL)
            pytest.fail("no worker process ever started")
        time.sleep(0.01)
    assert run.poll() is None, "the run ended before it could be interrupted"
    time.sleep(0.3)
    return run


def _gone_within(session: int, seconds: float) -> list[int]:
    """The session's processes still alive after waiting up to ``seconds`` for them to end."""
    deadline = time.monotonic() + seconds
    while _session_processes(session) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _session_processes(session)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see workers")
@pytest.mark.parametrize("cache", ["--no-cache", "--cache"])
def test_ctrl_c_stops_the_run_and_its_workers(tmp_path: Path, cache: str) -> None:
    many_bad_files(tmp_path, FILES)
    expected = _reference(tmp_path)
    args = [".", "--jobs", "2"] + (["--no-cache"] if cache == "--no-cache" else [])
    run = _start_with_workers(tmp_path, args)
    try:
        os.killpg(run.pid, signal.SIGINT)
        interrupted = time.monotonic()
        out, err = run.communicate(timeout=60)
        stopped_after = time.monotonic() - interrupted
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    assert run.returncode == 130, (run.returncode, err, out[-300:])
    assert stopped_after < 10, f"took {stopped_after:.1f} s to stop"
    assert b"Traceback" not in err and err.strip().endswith(b"lion-lint: interrupted"), err
    assert out == b""  # no partial report that could pass for a result
    assert _gone_within(run.pid, 0.5) == [], "a worker outlived the run"
    # Whatever the interrupted run left in the cache is sound: the next run is right.
    after = subprocess.run(_command(".", "--output-format", "json"), cwd=tmp_path,
                           capture_output=True, env=_environment(), timeout=600)
    assert (after.returncode, after.stdout) == (1, expected.stdout)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see workers")
def test_sigterm_to_the_run_alone_stops_it_and_its_workers(tmp_path: Path) -> None:
    """A CI job's timeout signals the process it started, not its process group."""
    many_bad_files(tmp_path, FILES)
    expected = _reference(tmp_path)
    run = _start_with_workers(tmp_path, [".", "--jobs", "2"])
    try:
        os.kill(run.pid, signal.SIGTERM)
        terminated = time.monotonic()
        out, err = run.communicate(timeout=60)
        stopped_after = time.monotonic() - terminated
        left = _gone_within(run.pid, 2)
    finally:
        with contextlib.suppress(ProcessLookupError):  # nothing left, as it should be
            os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert run.returncode == 128 + signal.SIGTERM, (run.returncode, err, out[-300:])
    assert stopped_after < 4, f"took {stopped_after:.1f} s to stop"
    assert b"Traceback" not in err and err.strip().endswith(b"lion-lint: terminated"), err
    assert out == b""
    assert left == [], "a worker outlived the run"
    after = subprocess.run(_command(".", "--output-format", "json"), cwd=tmp_path,
                           capture_output=True, env=_environment(), timeout=600)
    assert (after.returncode, after.stdout) == (1, expected.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers end with their parent on Linux")
def test_workers_end_when_the_run_is_killed_outright(tmp_path: Path) -> None:
    """SIGKILL (or the OOM killer) leaves the run no chance to stop its workers."""
    many_bad_files(tmp_path, FILES)
    run = _start_with_workers(tmp_path, [".", "--jobs", "2", "--no-cache"])
    try:
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=60)
        left = _gone_within(run.pid, 2)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
    assert left == [], "a worker outlived a killed run"


# An exit hook that never returns, as concurrent.futures' own becomes when a worker was
# stopped in the middle of sending a result: its pool's manager thread waits forever.
_INTERRUPTED_WITH_A_STUCK_EXIT_HOOK = """
import atexit, threading
import lintkit.cli.main as cli_main

atexit.register(threading.Event().wait)

def interrupted(**kwargs):
    raise KeyboardInterrupt

cli_main.cli.main = interrupted
cli_main.main()
"""


def test_an_interrupted_run_exits_even_when_an_exit_hook_would_hang() -> None:
    run = subprocess.run([sys.executable, "-c", _INTERRUPTED_WITH_A_STUCK_EXIT_HOOK],
                         capture_output=True, env=_environment(), timeout=60)
    assert run.returncode == 130
    assert run.stderr.strip() == b"lion-lint: interrupted"


# A finished run's exit: the same stuck hook, and the report still reaches its reader.
_FINISHED_WITH_A_STUCK_EXIT_HOOK = """
import atexit, sys, threading
import lintkit.cli.main as cli_main

atexit.register(threading.Event().wait)
sys.argv = ["lion-lint", "check", "--no-cache", "--output-format", "concise", "."]
cli_main.main()
"""


def test_a_finished_run_exits_with_its_status_and_whole_report_past_a_stuck_exit_hook(
        tmp_path: Path) -> None:
    """The CLI ends the process without tearing the interpreter down (freeing the project
    object by object cost a quarter of a second): no exit hook runs, and the report is
    flushed first."""
    many_bad_files(tmp_path, FILES)
    run = subprocess.run([sys.executable, "-c", _FINISHED_WITH_A_STUCK_EXIT_HOOK], cwd=tmp_path,
                         capture_output=True, env=_environment(), timeout=120)
    assert run.returncode == 1, run.stderr
    expected = subprocess.run(_command(".", "--no-cache", "--output-format", "concise"),
                              cwd=tmp_path, capture_output=True, env=_environment(), timeout=600)
    assert run.stdout == expected.stdout and run.stdout.count(b"\n") >= FILES


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_report_that_cannot_be_written_is_an_error_not_a_clean_exit(tmp_path: Path) -> None:
    many_bad_files(tmp_path, 2)
    with open("/dev/full", "w") as full:
        run = subprocess.run(_command(".", "--no-cache", "--output-format", "concise"),
                             cwd=tmp_path, stdout=full, stderr=subprocess.PIPE,
                             env=_environment(), timeout=120)
    assert run.returncode == 2
    assert b"lion-lint: error: cannot write the report" in run.stderr



@pytest.mark.skipif(shutil.which("sh") is None, reason="closes standard output with sh")
def test_a_closed_standard_output_is_an_error_not_a_crash(tmp_path: Path) -> None:
    many_bad_files(tmp_path, 2)
    closed = subprocess.run(["sh", "-c", 'exec "$0" -m lintkit . --no-cache >&-',
                             sys.executable], cwd=tmp_path, capture_output=True,
                            env=_environment(), timeout=120)
    assert (closed.returncode, closed.stderr) == (
        2, b"lion-lint: error: cannot write the report: standard output is closed\n")
