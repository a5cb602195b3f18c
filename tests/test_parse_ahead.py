"""A replay that misses because a few files changed parses them ahead, in a child process,
while the full run starts up; the full run then reads their facts from the cache."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from lintkit.cli.compose import compose
from lintkit.config.model import Settings
from lintkit.core.facts import facts_to_data
from lintkit.engine import ahead as ahead_module
from lintkit.engine import phase1, workers
from lintkit.engine.cache import content_hash
from lintkit.engine.discovery import discover
from lintkit.engine.projects import RunOptions
from lintkit.engine.replay import replay
from lintkit.engine.run import lint_paths
from tests.phase1_support import make_project

#: Files are parsed ahead only where forking is cheap, and where a second core is free.
FORKS = sys.platform.startswith("linux") and workers.usable_cores() > 1
pytestmark = pytest.mark.skipif(not FORKS, reason="files are parsed ahead only where forking "
                                "is cheap, on more than one core")

BAD = "src/pkg/bad.py"


def _warm(root: Path) -> RunOptions:
    """A project linted once with the cache, so that its next run may replay."""
    make_project(root)
    options = RunOptions(use_cache=True, jobs=2)
    lint_paths([root], None, compose, options)
    return options


def _summary(results: list) -> list:
    return [(r.root, r.diagnostics, r.suppressed, r.files_checked) for r in results]


def _cache(root: Path) -> phase1.FactsCache:
    return phase1.facts_cache(root, root / ".lion-lint-cache", Settings())


def _paths(root: Path) -> list[str]:
    return discover(root, Settings())[0]


def _edit_parsed_ahead(root: Path, options: RunOptions) -> None:
    """Edit one file; a replay with ``options`` misses, parses the edit ahead into the cache,
    and the full run that takes it reports what an uncached run does."""
    changed = (root / BAD).read_bytes() + b"\nEXTRA = 1\n"
    (root / BAD).write_bytes(changed)
    missed = replay([root], None, options)
    assert missed.results is None and missed.ahead is not None
    assert missed.ahead.paths == {BAD}
    missed.ahead.wait()
    assert _cache(root).has_entry(BAD, content_hash(changed))
    full = lint_paths([root], None, compose, replace(options, parsed_ahead=missed.ahead))
    fresh = lint_paths([root], None, compose, replace(options, use_cache=False, jobs=1))
    assert _summary(full) == _summary(fresh)


def test_a_missed_replay_parses_the_changed_file_ahead_for_the_full_run(tmp_path: Path) -> None:
    _edit_parsed_ahead(tmp_path, _warm(tmp_path))


def test_a_run_asking_for_other_rules_still_parses_the_changed_file_ahead(
        tmp_path: Path) -> None:
    options = _warm(tmp_path)
    # As the pre-commit hook runs after a run from the shell: the last result is not its
    # own to replay, but the note's settings and file stamps are its configuration's.
    hook = replace(options, force_exclude=True, select=("LL001",))
    _edit_parsed_ahead(tmp_path, hook)

    # Nothing changed since: invoked as the last run, replayed. Invoked as the run before,
    # from that run's own note: the edit is parsed already, but no result of it is stored.
    assert replay([tmp_path], None, hook).results is not None
    other = replay([tmp_path], None, options)
    assert other.results is None and other.ahead is None
    assert other.missed == f"{tmp_path}: no stored result for these files and rules"


def test_a_changed_configuration_parses_nothing_ahead(tmp_path: Path) -> None:
    options = _warm(tmp_path)
    (tmp_path / BAD).write_bytes((tmp_path / BAD).read_bytes() + b"\nEXTRA = 1\n")
    config = tmp_path / "pyproject.toml"
    # The note's settings are another configuration's: its file set may not be this one's.
    config.write_text(config.read_text() + "\n# edited\n")
    missed = replay([tmp_path], None, options)
    assert missed.results is None and missed.ahead is None
    assert missed.missed.startswith(f"{tmp_path}: invoked otherwise")


def test_a_touched_file_is_not_parsed_again(tmp_path: Path) -> None:
    options = _warm(tmp_path)
    entry = _cache(tmp_path).entry_path(BAD)
    before = entry.stat().st_ino
    time.sleep(0.01)
    (tmp_path / BAD).write_bytes((tmp_path / BAD).read_bytes())  # new mtime, same bytes
    # Touched alone, the project is as it was linted: replayed, nothing parsed ahead.
    touched = replay([tmp_path], None, options)
    assert touched.results is not None and touched.ahead is None
    # Beside an edit, the touched file goes to the child too, which leaves its entry be.
    mid = tmp_path / "src/pkg/mid.py"
    edited = mid.read_bytes() + b"\nEXTRA = 1\n"
    mid.write_bytes(edited)
    missed = replay([tmp_path], None, options)
    assert missed.results is None and missed.ahead is not None
    assert missed.ahead.paths == {BAD, "src/pkg/mid.py"}
    missed.ahead.wait()
    assert _cache(tmp_path).has_entry("src/pkg/mid.py", content_hash(edited))
    assert entry.stat().st_ino == before  # entries are replaced by renaming: not rewritten


def test_nothing_is_parsed_ahead_with_one_job_or_many_changes(tmp_path: Path) -> None:
    make_project(tmp_path)
    cache = _cache(tmp_path)
    assert ahead_module.parse_ahead(tmp_path, [BAD], cache, jobs=1) is None
    assert ahead_module.parse_ahead(tmp_path, [], cache, jobs=2) is None
    for number in range(workers.POOL_MIN_FILES):
        (tmp_path / f"src/pkg/big_{number}.py").write_text("x = 1\n" * 3_000)  # 18 KB
    many = [f"src/pkg/big_{number}.py" for number in range(workers.POOL_MIN_FILES)]
    assert ahead_module.parse_ahead(tmp_path, many, cache, jobs=2) is None  # the pool's work
    ahead = ahead_module.parse_ahead(tmp_path, many[:-1], cache, jobs=2)
    assert ahead is not None
    ahead.wait()


def test_nothing_is_parsed_ahead_from_a_process_with_other_threads(tmp_path: Path) -> None:
    """Forking copies a lock another thread holds, held for good in the child."""
    make_project(tmp_path)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert ahead_module.parse_ahead(tmp_path, [BAD], _cache(tmp_path), jobs=2) is None
    finally:
        release.set()
        other.join()
    ahead = ahead_module.parse_ahead(tmp_path, [BAD], _cache(tmp_path), jobs=2)
    assert ahead is not None
    ahead.wait()


def _ahead_from_a_daemon(root: Path, answer: Any) -> None:
    answer.send(ahead_module.parse_ahead(root, [BAD], _cache(root), jobs=2) is None)


def test_nothing_is_parsed_ahead_from_a_daemonic_process(tmp_path: Path) -> None:
    """multiprocessing lets no daemonic process have children: the run goes on without."""
    make_project(tmp_path)
    receive, send = multiprocessing.Pipe(duplex=False)
    daemon = multiprocessing.get_context("fork").Process(
        target=_ahead_from_a_daemon, args=(tmp_path, send), daemon=True)
    daemon.start()
    send.close()  # the daemon's end only: its dying early ends the pipe
    assert receive.poll(60) and receive.recv() is True
    daemon.join()
    assert daemon.exitcode == 0


# lion-lint's command line, saying at the end whether its own process imported LibCST
# (not a child's: a forked child runs the same os._exit).
_SAYS_WHO_PARSED = """
import os, sys
main_process = os.getpid()
exit_now = os._exit
said_path = sys.argv[1]

def exit_saying(code):
    if os.getpid() == main_process:
        with open(said_path, "w") as said:
            said.write(str("libcst" in sys.modules))
    exit_now(code)

os._exit = exit_saying
sys.argv = ["lion-lint", *sys.argv[2:]]
from lintkit.cli.main import main
main()
"""


def _check_saying(root: Path, *args: str) -> tuple[str, bool]:
    """The JSON report of ``lion-lint check ARGS`` and whether its process imported LibCST."""
    said = root.parent / f"{root.name}-said.txt"  # outside the project
    done = subprocess.run([sys.executable, "-c", _SAYS_WHO_PARSED, str(said), "check",
                           "--output-format", "json", *args], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    return done.stdout, said.read_text() == "True"


def test_the_command_line_leaves_an_edit_to_the_child_and_reports_as_a_cold_run(
        tmp_path: Path) -> None:
    make_project(tmp_path)
    _check_saying(tmp_path, "--jobs", "2")  # cold: notes the run
    (tmp_path / BAD).write_text((tmp_path / BAD).read_text() + "\nEXTRA = 1\n")
    report, parsed_here = _check_saying(tmp_path, "--jobs", "2")
    assert not parsed_here  # the child parsed it; this process only read the cache
    assert report == _check_saying(tmp_path, "--jobs", "2", "--no-cache")[0]
    (tmp_path / BAD).write_text((tmp_path / BAD).read_text() + "\nMORE = 2\n")
    _check_saying(tmp_path, "--jobs", "1")  # notes this invocation
    (tmp_path / BAD).write_text((tmp_path / BAD).read_text() + "\nLAST = 3\n")
    assert _check_saying(tmp_path, "--jobs", "1")[1]  # one job: parsed here


class _Recorded(ahead_module.ParsedAhead):
    waited = 0

    def wait(self) -> None:
        type(self).waited += 1
        super().wait()


def _parse_later(root: Path, paths: list[str], cache: phase1.FactsCache) -> None:
    time.sleep(0.5)  # still parsing when the full run has decoded the rest
    ahead_module._parse_into_cache(root, paths, cache, 0, multiprocessing.parent_process().pid)


def _die(*_: object) -> None:
    pass  # a child that stored nothing (killed, out of memory)


def _cached_project(root: Path) -> tuple[list[str], phase1.Phase1Options]:
    """A project whose files are all in the cache: its paths and the options that use it."""
    make_project(root)
    paths = _paths(root)
    cached = phase1.Phase1Options(cache_dir=root / ".lion-lint-cache", jobs=2)
    phase1.run_phase1(root, paths, {}, cached)
    return paths, cached


@pytest.mark.parametrize("child", [_parse_later, _die], ids=["parses", "dies"])
def test_the_full_run_decodes_the_rest_then_waits_for_the_files_parsed_ahead(
        tmp_path: Path, child: object) -> None:
    paths, cached = _cached_project(tmp_path)
    (tmp_path / BAD).write_text((tmp_path / BAD).read_text() + "\nEXTRA = 1\n")
    cache = _cache(tmp_path)
    process = multiprocessing.get_context("fork").Process(
        target=child, args=(tmp_path, [BAD], cache), daemon=True)
    process.start()
    _Recorded.waited = 0
    ahead = _Recorded(cache, frozenset([BAD]), process)
    result = phase1.run_phase1(tmp_path, paths, {}, replace(cached, ahead=ahead))
    assert _Recorded.waited == 1
    # Parsed by the child: read from the cache. Not parsed by it: parsed here, after all.
    assert result.parsed == ([] if child is _parse_later else [BAD])
    assert result.from_cache == len(paths) - len(result.parsed)
    alone = phase1.run_phase1(tmp_path, paths, {}, phase1.Phase1Options(jobs=1))
    assert [facts_to_data(f) for f in result.facts] == [facts_to_data(f) for f in alone.facts]


def test_a_parse_ahead_for_another_cache_is_ignored(tmp_path: Path) -> None:
    make_project(tmp_path)
    ahead = ahead_module.parse_ahead(tmp_path, [BAD], _cache(tmp_path), jobs=2)
    assert ahead is not None
    ahead.wait()
    elsewhere = phase1.facts_cache(tmp_path, tmp_path / "other-cache", Settings())
    assert ahead.serves(_cache(tmp_path)) and not ahead.serves(elsewhere)
    assert not ahead.serves(None)


def _check_buffer_saying(root: Path, buffer: str, *args: str) -> tuple[str, bool]:
    """As ``_check_saying``, with ``buffer`` on stdin as the unsaved text of BAD."""
    said = root.parent / f"{root.name}-said.txt"
    done = subprocess.run([sys.executable, "-c", _SAYS_WHO_PARSED, str(said), "check",
                           "--output-format", "json", "--stdin-filename", BAD, *args, "-"],
                          cwd=root, input=buffer, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    return done.stdout, said.read_text() == "True"


def test_the_command_line_leaves_an_editor_buffer_to_a_child_and_never_caches_it(
        tmp_path: Path) -> None:
    make_project(tmp_path)
    _check_saying(tmp_path, "--jobs", "2")  # the cache holds every file as saved
    saved = content_hash((tmp_path / BAD).read_bytes())
    buffer = (tmp_path / BAD).read_text() + "\n\n@dataclass\nclass Unsaved(Mid):\n    pass\n"

    report, parsed_here = _check_buffer_saying(tmp_path, buffer, "--jobs", "2")

    assert not parsed_here  # the child parsed the buffer; this process never imported LibCST
    assert report == _check_buffer_saying(tmp_path, buffer, "--jobs", "2", "--no-cache")[0]
    assert "Unsaved" in report  # the buffer's own diagnostic, not the saved file's
    assert _cache(tmp_path).has_entry(BAD, saved)  # the entry is still the saved file's
    assert _check_buffer_saying(tmp_path, buffer, "--jobs", "1")[1]  # one job: parsed here


def _die_silently(*_: object) -> None:
    pass  # a child that sends nothing (killed, out of memory)


@pytest.mark.parametrize("case", ["parsed", "child dies", "buffer edited since"])
def test_the_full_run_takes_a_buffer_from_its_child_or_parses_it_itself(
        tmp_path: Path, case: str) -> None:
    paths, cached = _cached_project(tmp_path)
    buffer = (tmp_path / BAD).read_bytes() + b"\n\n@dataclass\nclass Unsaved(Mid):\n    pass\n"
    if case == "child dies":
        context = multiprocessing.get_context("fork")
        receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_die_silently, daemon=True)
        process.start()
        send.close()
        ahead = ahead_module.ParsedAhead(None, frozenset(), process,
                                   (BAD, content_hash(buffer), receive))
    else:
        ahead = ahead_module.parse_buffer_ahead(BAD, buffer, jobs=2)
    assert ahead is not None
    if case == "buffer edited since":  # the run lints newer text than the child parses
        buffer += b"\nLATER = 1\n"
    result = phase1.run_phase1(tmp_path, paths, {BAD: buffer}, replace(cached, ahead=ahead))
    assert result.parsed == [BAD] and result.from_cache == len(paths) - 1
    alone = phase1.run_phase1(tmp_path, paths, {BAD: buffer}, phase1.Phase1Options(jobs=1))
    assert [facts_to_data(f) for f in result.facts] == [facts_to_data(f) for f in alone.facts]
    assert not _cache(tmp_path).has_entry(BAD, content_hash(buffer))
