"""Where phase 1 parses the files the cache lacks: here, or in a pool of worker processes.

A handful of small files is parsed in this process, where a pool would cost more than it
saves. Otherwise the files go to workers in batches that shrink as the work runs out, largest
files first, so that the workers finish together. Whichever way a file goes, its facts come
as the JSON text the cache stores; a worker that stored them sends nothing back, and the
main process loads them from the cache once the workers have ended (``lintkit.engine.phase1``).
"""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lintkit.core.facts import FileFacts, ParseError, facts_to_data
from lintkit.engine.budget import ParseBudget, parse_budget
from lintkit.engine.cache import FactsCache, content_hash
from lintkit.engine.memory import (collector_paused, libc_function, one_malloc_arena,
                                   release_free_memory)

# Below these a pool costs more than it saves: starting workers and shipping results back
# takes tens of milliseconds, about what LibCST needs for 50 KB of source.
POOL_MIN_FILES = 8
POOL_MIN_BYTES = 96 * 1024
# With this many cache hits to decode, even one changed file goes to a worker: it imports
# LibCST and parses while this process decodes (a warm run never imports LibCST here).
OVERLAP_MIN_HITS = 100
# Batches shrink as the work runs out (guided scheduling), so the workers finish together.
_BATCH_SHARE = 3
_BATCH_MIN_BYTES = 24 * 1024
# After parsing a file at least this large, a worker hands its freed memory back to the
# system: parsing a 300 KB module takes LibCST some 200 MB, and glibc keeps what is freed.
_RELEASE_MIN_BYTES = 32 * 1024


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Work:
    """A file to decode or parse: its place in the run's list of paths, its size, its
    bytes when they are not the file's on disk (an editor's buffer), whether its facts go
    into the cache, and the content hash the survey found."""

    index: int
    path: str
    size: int
    source: bytes | None  # None: read the file from disk
    store: bool
    digest: str = ""


def read_error(path: str, error: OSError) -> FileFacts:
    """The LL000 of a file that cannot be read."""
    reason = error.strerror or type(error).__name__
    return FileFacts(path=path, is_package=path.endswith("__init__.py"),
                     error=ParseError(1, 1, f"cannot read file: {reason}"))


def start_extraction(root: Path, todo: list[Work], jobs: int | None, cache: FactsCache | None,
                     hits: int
                     ) -> tuple[Iterator[tuple[int, str | None]], Callable[[], None], int]:
    """Start parsing ``todo``: in worker processes when there is enough to parse, or
    enough cached facts to decode meanwhile (``hits``); otherwise here, lazily. Returns the
    results, how to stop the workers early, and how many there are (0: none)."""
    jobs = jobs or usable_cores()
    size = sum(work.size for work in todo)
    worth_a_pool = len(todo) >= POOL_MIN_FILES and size >= POOL_MIN_BYTES
    if not todo or jobs == 1 or not (worth_a_pool or hits >= OVERLAP_MIN_HITS):
        return extract_each(root, todo, cache), lambda: None, 0
    batches = _batches(todo, jobs)
    workers = min(jobs, len(batches))
    return (*_extract_in_pool(root, batches, workers, cache), workers)


def _batches(todo: list[Work], jobs: int) -> list[list[Work]]:
    """Largest files first, in batches that shrink with the work left."""
    ordered = sorted(todo, key=lambda work: (-work.size, work.path))
    remaining = sum(work.size for work in ordered)
    batches: list[list[Work]] = []
    batch: list[Work] = []
    batch_size = 0
    target = max(remaining // (jobs * _BATCH_SHARE), _BATCH_MIN_BYTES)
    for work in ordered:
        batch.append(work)
        batch_size += work.size
        remaining -= work.size
        if batch_size >= target:
            batches.append(batch)
            batch, batch_size = [], 0
            target = max(remaining // (jobs * _BATCH_SHARE), _BATCH_MIN_BYTES)
    if batch:
        batches.append(batch)
    return batches


def _extract_in_pool(root: Path, batches: list[list[Work]], workers: int,
                     cache: FactsCache | None
                     ) -> tuple[Iterator[tuple[int, str | None]], Callable[[], None]]:
    """Submit every batch now; the results as the returned iterator is consumed."""
    from concurrent.futures import ProcessPoolExecutor

    one_malloc_arena()
    if cache is not None:
        # Once here rather than in each worker, which inherits a prepared cache: the
        # markers, this salt's stamp and the removal of stale salts.
        cache.ready()
    context = _pool_context()
    budget = parse_budget(context, workers)
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                   initializer=worker_started,
                                   initargs=(os.getpid(), budget))
    try:
        pending = {executor.submit(_extract_batch, root, batch, cache): batch
                   for batch in batches}
    except BaseException:
        _stop_workers(executor)
        raise
    return _pool_results(executor, pending, root, cache), lambda: _stop_workers(executor)


def _pool_results(executor: Any, pending: dict[Any, list[Work]], root: Path,
                  cache: FactsCache | None) -> Iterator[tuple[int, str | None]]:
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    unfinished: list[Work] = []
    try:
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                batch = pending.pop(future)
                try:
                    texts = future.result()
                except BrokenProcessPool:
                    # A worker died (killed, out of memory): redo its files here, where a
                    # real parser crash shows as it would without workers.
                    unfinished.extend(batch)
                    continue
                if not pending:  # end the workers, and free their memory, before decoding
                    executor.shutdown(wait=True)
                yield from texts
    except BaseException:
        _stop_workers(executor)
        raise
    executor.shutdown(wait=True)
    if unfinished:
        yield from extract_each(root, unfinished, cache)


def _pool_context() -> Any:
    import multiprocessing

    # Forking starts a worker in milliseconds with lion-lint already imported; elsewhere
    # (macOS, Windows) the platform's default start method is the safe one.
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _stop_workers(executor: Any) -> None:
    """Stop at once (Ctrl-C): cancel queued batches and end the workers mid-batch."""
    # Called again after a first stop (the pool's iterator and run_phase1 both stop it on
    # Ctrl-C): a shut-down executor's process table is None.
    processes = list((getattr(executor, "_processes", None) or {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass
    # Let the pool's manager thread see its workers gone and end now: left running into
    # interpreter exit, it races the exit hook over a closed pipe, which prints "OSError:
    # Bad file descriptor" with a traceback (a CPython bug, gh-132969 and kin).
    if manager is not None:
        manager.join(timeout=5)


# prctl's option that signals a process when its parent dies, from linux/prctl.h.
_PR_SET_PDEATHSIG = 1

#: In a worker, the budget its parses share with the other workers' (None elsewhere).
_budget: ParseBudget | None = None


def worker_started(parent: int, budget: ParseBudget | None = None) -> None:
    """Set up a process forked to parse (a pool worker, or a child that parses ahead):
    its signals, its end with ``parent``, and the parse ``budget`` it shares, if any."""
    import signal

    global _budget
    _budget = budget

    # Ctrl-C is the parent's to handle: it stops the workers; they must not print tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The parent stops a worker with SIGTERM, so it must end on it, whatever handler the
    # parent had when it forked (the CLI's turns SIGTERM into an interrupt).
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # A parent killed outright (SIGKILL, the OOM killer, a CI timeout's SIGTERM before it
    # stops the pool) cannot stop its workers, which would parse their queue to the end and
    # then wait for more forever. Linux ends them with it; a parent already gone is seen now.
    prctl = libc_function("prctl")
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os._exit(1)
    # What the worker inherited is never garbage: keep the collector from scanning it.
    gc.freeze()


def _extract_batch(root: Path, batch: Sequence[Work],
                   cache: FactsCache | None) -> list[tuple[int, str | None]]:
    """A worker's task: a batch of files, their facts as JSON text (None: in the cache)."""
    # The pool pickled and sent the previous batch's texts after that task returned: their
    # memory is free by now, but glibc kept it (a worker began its next batch 30 to 80 MB
    # above where the last one ended, on the standard library, and a batch of small files
    # never trims until its end).
    release_free_memory()
    results: list[tuple[int, str | None]] = []
    with collector_paused():
        # What a worker stores in the cache stays out of the pipe: this process loads it
        # from there once the workers have ended (see ``finish_phase1``).
        for work, result in zip(batch, extract_each(root, batch, cache, ship=False)):
            results.append(result)
            # LibCST evaluates a string literal with escapes by ast.literal_eval, whose
            # nested helpers are reference cycles that a paused collector never frees
            # (some 50 MB per worker on the standard library). Collect what a file left:
            # its tree is gone by now, so little is left to scan.
            gc.collect(0)
            if work.size >= _RELEASE_MIN_BYTES:
                release_free_memory()
    # Small files free little each, but a batch of them adds up; the worker may wait idle.
    release_free_memory()
    return results


def extract_each(root: Path, batch: Sequence[Work], cache: FactsCache | None,
                 ship: bool = True) -> Iterator[tuple[int, str | None]]:
    """Parse files one by one; their facts as JSON text, stored in the cache on the way.

    Without ``ship``, a file whose entry was stored under the hash the survey found gives
    None for its text: the reader loads it from the cache."""
    for work in batch:
        source = work.source
        if source is None:
            try:
                source = (root / work.path).read_bytes()
            except OSError as error:
                yield work.index, json.dumps(facts_to_data(read_error(work.path, error)))
                continue
        text = extract_json(work.path, source)
        if cache is not None and work.store:
            digest = content_hash(source)
            stored = cache.store_text(work.path, cache.encode(work.path, digest, text))
            if stored and not ship and digest == work.digest:
                yield work.index, None
                continue
        yield work.index, text


def extract_json(path: str, source: bytes) -> str:
    """One file's facts as the JSON text the cache stores (in a worker, within the budget
    the workers share)."""
    from lintkit.parsing.extract import extract

    # LibCST's parser works in native memory that it frees when the tree is built, and
    # glibc keeps those pages, so what Python then allocates for the facts comes on top of
    # the parser's peak: handing them back first took the worker that parses the standard
    # library's largest module from 281 MB to 162 MB.
    after_parse = release_free_memory if len(source) >= _RELEASE_MIN_BYTES else None
    facts = extract(path, source, path.endswith("__init__.py"), after_parse,
                    _budget.admit if _budget is not None else None)
    return json.dumps(facts_to_data(facts), separators=(",", ":"))
