"""Phase 1 for a set of files: read each file and extract its facts.

This is the part that parses, so it is the part that is cached and parallelised, and this
module decides how: every file's bytes are hashed and looked up in the content cache
(``lintkit.engine.cache``); the files that miss are parsed in this process when they are
few, and otherwise in worker processes, in batches, largest files first. Whichever way a
file goes, its facts travel as the same JSON text the cache stores, so cached, parallel and
in-process runs give identical facts by construction. A run in which every file hits the
cache never imports LibCST.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lintkit.core.facts import FACTS_VERSION, FileFacts, ParseError, facts_from_data, facts_to_data
from lintkit.engine.budget import ParseBudget, parse_budget
from lintkit.engine.cache import (FactsCache, cache_salt, content_hash,
                                  unusable_cache_directory)
from lintkit.engine.memory import libc_function, one_malloc_arena, release_free_memory

Progress = Callable[[int, int], None]

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
# The main process hands back freed memory after every this many files it decodes.
_TRIM_EVERY = 64


@dataclass(frozen=True)
class Phase1Options:
    #: Where cache entries live; None runs without the cache.
    cache_dir: Path | None = None
    #: Worker processes for the files that must be parsed; None: the usable cores.
    jobs: int | None = None
    #: Files already being parsed into the cache (by a replay that missed), if any.
    ahead: ParsedAhead | None = None


@dataclass
class Phase1Result:
    facts: list[FileFacts]
    #: The paths this phase parsed (the rest came from the cache, a file parsed ahead among
    #: them, or could not be read).
    parsed: list[str] = field(default_factory=list)
    from_cache: int = 0
    #: Worker processes used (0: everything ran in this process).
    workers: int = 0


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def phase1_settings(settings: Any) -> dict[str, Any]:
    """The part of ``[tool.lion-lint]`` that changes what phase 1 extracts; it keys the cache.

    Today nothing does: facts depend on a file's path and bytes alone, so editing a rule's
    options keeps every cached entry. A setting that ever changes extraction must be
    returned here, or stale facts would be served after it changes.
    """
    return {}


def options_for(root: Path, settings: Any, *, use_cache: bool, cache_dir: Path | None = None,
                jobs: int | None = None, ahead: ParsedAhead | None = None) -> Phase1Options:
    """Phase-1 options for a project: ``cache_dir`` overrides the ``cache-dir`` setting
    (which is relative to the project root)."""
    directory = None
    if use_cache:
        directory = cache_dir if cache_dir is not None else root / settings.cache_dir
    return Phase1Options(cache_dir=directory, jobs=jobs, ahead=ahead)


def too_large(path: str, size: int, limit: int) -> FileFacts:
    """The LL000 of a file over ``max-file-size`` (LibCST would need ~2 KB per byte)."""
    return FileFacts(path=path, is_package=path.endswith("__init__.py"), error=ParseError(
        1, 1, f"file too large to check: {size:,} bytes, over max-file-size ({limit:,} "
              "bytes); raise the limit or exclude the file"))


def read_error(path: str, error: OSError) -> FileFacts:
    reason = error.strerror or type(error).__name__
    return FileFacts(path=path, is_package=path.endswith("__init__.py"),
                     error=ParseError(1, 1, f"cannot read file: {reason}"))


def analyse_file(root: Path, path: str, source: bytes | None = None) -> FileFacts:
    """The facts of one project file (``source`` stands in for the file on disk)."""
    if source is None:
        try:
            source = (root / path).read_bytes()
        except OSError as error:
            return read_error(path, error)
    return _facts_of(_extract_json(path, source))


def _facts_of(text: str) -> FileFacts:
    """A file's facts from the JSON text that phase 1 writes, caches and ships."""
    return facts_from_data(json.loads(text))


def collect_facts(root: Path, paths: Sequence[str], overrides: dict[str, bytes],
                  progress: Progress | None = None,
                  options: Phase1Options | None = None) -> list[FileFacts]:
    return run_phase1(root, paths, overrides, options or Phase1Options(), progress).facts


@dataclass
class Survey:
    """Phase 1's first step: every file read and hashed.

    Nothing is decoded, parsed or even looked up in the cache yet, so the run can first ask
    whether its whole result is already known (``fingerprint``: see
    ``lintkit.engine.results``); a run that replays it never opens a facts entry."""

    root: Path
    cache: FactsCache | None
    #: Facts known without parsing (unreadable or too large files), by position in paths.
    facts: list[FileFacts | None]
    #: Every other file, to be decoded from the cache or parsed.
    works: list[_Work]

    def fingerprint(self) -> list[tuple[str, str]] | None:
        """Each file's content hash (or, for a file not parsed, why): None when a file
        is an editor's buffer or the run has no cache, which no stored result can stand for."""
        if self.cache is None:
            return None
        known: list[tuple[str, str]] = []
        for work in self.works:
            if not work.store:
                return None
            known.append((work.path, work.digest))
        for early in self.facts:
            if early is not None:
                known.append((early.path, f"!{early.error.message if early.error else ''}"))
        return sorted(known)


def facts_cache(root: Path, directory: Path, settings: Any) -> FactsCache:
    """The cache of a project's facts in ``directory``, under this run's salt."""
    from lintkit import __version__

    return FactsCache(directory, root, cache_salt(__version__, FACTS_VERSION,
                                                  phase1_settings(settings)))


def survey(root: Path, paths: Sequence[str], overrides: dict[str, bytes],
           options: Phase1Options, settings: Any = None) -> Survey:
    """Read and hash every file, and find which ones the cache holds."""
    cache = None
    if options.cache_dir is not None:
        unusable = unusable_cache_directory(options.cache_dir, root)
        if unusable:
            from lintkit.config.locate import ConfigError

            raise ConfigError(f"cannot keep the cache in {options.cache_dir}: {unusable}; set "
                              "cache-dir (or --cache-dir) to a new or empty directory, or "
                              "run with --no-cache")
        cache = facts_cache(root, options.cache_dir, settings)
    found = Survey(root, cache, [None] * len(paths), [])
    limit = getattr(settings, "max_file_size", 0)
    for index, path in enumerate(paths):
        source = overrides.get(path)
        from_disk = source is None
        if source is None:
            try:
                source = (root / path).read_bytes()
            except OSError as error:
                found.facts[index] = read_error(path, error)
                continue
        if limit and len(source) > limit:
            found.facts[index] = too_large(path, len(source), limit)
            continue
        digest = content_hash(source) if cache is not None else ""
        # An editor's unsaved buffer is linted but never cached; a file on disk is
        # read again by the worker, which hashes what it parses.
        found.works.append(_Work(index, path, len(source), None if from_disk else source,
                                 store=from_disk and cache is not None, digest=digest))
    return found


def run_phase1(root: Path, paths: Sequence[str], overrides: dict[str, bytes],
               options: Phase1Options, progress: Progress | None = None,
               settings: Any = None) -> Phase1Result:
    """The facts of ``paths`` (in that order), from the cache where it holds them."""
    return finish_phase1(survey(root, paths, overrides, options, settings), options, progress)


def finish_phase1(found: Survey, options: Phase1Options,
                  progress: Progress | None = None) -> Phase1Result:
    """Decode the cache hits of a survey and parse its misses."""
    root, cache = found.root, found.cache
    ahead = options.ahead if options.ahead is not None and options.ahead.serves(cache) else None
    hits: list[_Work] = []
    todo: list[_Work] = []
    awaited: list[_Work] = []  # being parsed into the cache ahead of this run
    buffered: list[_Work] = []  # an editor's buffer being parsed ahead of this run
    for work in found.works:
        if cache is not None and cache.has_entry(work.path, work.digest):
            hits.append(work)
        elif ahead is not None and work.store and work.path in ahead.paths:
            awaited.append(work)
        elif ahead is not None and ahead.parses(work):
            buffered.append(work)
        else:
            todo.append(work)
    facts = list(found.facts)
    total = len(facts)
    result = Phase1Result(facts=[])
    # Collection finds no garbage among freshly decoded facts, and with tens of thousands
    # of live objects its passes cost more than the decoding itself.
    with collector_paused():
        # The misses go to the workers first, so that they parse (and import LibCST)
        # while this process decodes the hits.
        parsed, stop = _start_extraction(root, todo, options.jobs, cache, result,
                                         len(hits) + len(awaited))
        late: list[_Work] = []  # cache hits that failed to load: parsed here
        unstored: list[_Work] = []  # what a worker stored but this process cannot load
        done = total - len(hits) - len(todo) - len(awaited) - len(buffered)

        def count() -> None:
            nonlocal done
            done += 1
            _decoded(done, total, progress)

        def decode(work: _Work, failed: list[_Work]) -> bool:
            decoded = _decode_entry(cache, work) if cache is not None else None
            if decoded is None:  # damaged or replaced since its header was read
                failed.append(work)
                return False
            facts[work.index] = decoded
            return True

        try:
            for work in hits:
                if decode(work, late):
                    count()
            if ahead is not None and awaited:
                ahead.wait()  # all else is decoded: only now are its files needed
                for work in awaited:
                    if decode(work, late):
                        count()
            unsent: list[_Work] = []  # a buffer whose child ended without its facts
            for work in buffered:  # likewise needed only now
                text = ahead.buffer_facts()  # type: ignore[union-attr]  # buffered: an ahead
                if text is None:
                    unsent.append(work)
                else:
                    facts[work.index] = _facts_of(text)
                    count()
            # What the workers parsed is decoded once they have ended: decoded as it came,
            # the facts of a large project (200 MB of the standard library's) grew here
            # beside the workers' parse peaks, and the process tree peaked at their sum.
            # Most of it waits in the cache; what they had to send back waits here as
            # text, which takes about half the memory of its facts.
            waiting: list[tuple[_Work, str | None]] = []  # text None: in the cache
            in_todo = {work.index: work for work in todo}
            for index, text in parsed:
                if text is None or result.workers:
                    waiting.append((in_todo[index], text))
                else:  # parsed here, in this process: nothing to wait for
                    facts[index] = _facts_of(text)
                count()
            waiting.reverse()  # decoded in order, each text let go as its facts are made
            while waiting:
                work, text = waiting.pop()
                if text is None:
                    decode(work, unstored)
                else:
                    facts[work.index] = _facts_of(text)
                    del text
                if len(waiting) % _TRIM_EVERY == 0:
                    release_free_memory()
            for index, text in _extract_each(root, [*late, *unstored, *unsent], cache):
                facts[index] = _facts_of(text)  # type: ignore[arg-type]  # shipped
                if index not in in_todo:  # counted already when a worker stored it
                    count()
        except BaseException:  # Ctrl-C or a bug: the workers must not outlive the run
            stop()
            raise
    result.from_cache = len(hits) + len(awaited) - len(late)
    result.parsed = [work.path for work in (*todo, *buffered, *late)]
    result.facts = [f for f in facts if f is not None]
    return result


def _decoded(done: int, total: int, progress: Progress | None) -> None:
    """After one more file is done (decoded, or stored by a worker for decoding once the
    workers have ended): report it, and now and then hand back to
    the system the C heap's pages that the decoding freed. Each file's JSON text and parts
    of its decoded lists live there, between facts that stay, and glibc would keep their
    pages: on the standard library 30 MB more at the end of phase 1, which every later
    step of the run builds on."""
    if progress is not None:
        progress(done, total)
    if done % _TRIM_EVERY == 0:
        release_free_memory()


def _decode_entry(cache: FactsCache, work: _Work) -> FileFacts | None:
    data = cache.load(work.path, work.digest)
    if data is None:
        return None
    try:
        return facts_from_data(data)
    except Exception:  # a foreign or damaged entry: parse afresh
        return None


@dataclass(frozen=True)
class _Work:
    index: int
    path: str
    size: int
    source: bytes | None  # None: read the file from disk
    store: bool
    digest: str = ""


def _start_extraction(root: Path, todo: list[_Work], jobs: int | None,
                      cache: FactsCache | None, result: Phase1Result,
                      hits: int) -> tuple[Iterator[tuple[int, str | None]], Callable[[], None]]:
    """Start parsing ``todo``: in worker processes when there is enough to parse, or
    enough cached facts to decode meanwhile; otherwise here, lazily. Returns the results
    and how to stop the workers early."""
    jobs = jobs or usable_cores()
    size = sum(work.size for work in todo)
    worth_a_pool = len(todo) >= POOL_MIN_FILES and size >= POOL_MIN_BYTES
    if not todo or jobs == 1 or not (worth_a_pool or hits >= OVERLAP_MIN_HITS):
        return _extract_each(root, todo, cache), lambda: None
    batches = _batches(todo, jobs)
    result.workers = min(jobs, len(batches))
    return _extract_in_pool(root, batches, result.workers, cache)


def _batches(todo: list[_Work], jobs: int) -> list[list[_Work]]:
    """Largest files first, in batches that shrink with the work left."""
    ordered = sorted(todo, key=lambda work: (-work.size, work.path))
    remaining = sum(work.size for work in ordered)
    batches: list[list[_Work]] = []
    batch: list[_Work] = []
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


def _extract_in_pool(root: Path, batches: list[list[_Work]], workers: int,
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
                                   initializer=_worker_started,
                                   initargs=(os.getpid(), budget))
    try:
        pending = {executor.submit(_extract_batch, root, batch, cache): batch
                   for batch in batches}
    except BaseException:
        _stop_workers(executor)
        raise
    return _pool_results(executor, pending, root, cache), lambda: _stop_workers(executor)


def _pool_results(executor: Any, pending: dict[Any, list[_Work]], root: Path,
                  cache: FactsCache | None) -> Iterator[tuple[int, str | None]]:
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    unfinished: list[_Work] = []
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
        yield from _extract_each(root, unfinished, cache)


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


class ParsedAhead:
    """A few changed files, or an editor's buffer, being parsed by a child process.

    A warm run that misses its replay because a few files changed (see
    ``lintkit.engine.replay``) knows which ones a tenth of a second before the full run
    could start parsing them: the configuration's model, the rules and a survey of every
    file come first. Started then, the child imports LibCST and parses meanwhile; the full
    run decodes every other file and then finds these in the cache (``finish_phase1``).
    An editor's unsaved buffer is known from the start, but never cached: its facts come
    back through a pipe (``parse_buffer_ahead``).
    """

    def __init__(self, cache: FactsCache | None, paths: frozenset[str], process: Any,
                 buffer: tuple[str, str, Any] | None = None) -> None:
        self.cache = cache
        #: The project files (relative to its root) the child parses.
        self.paths = paths
        self._process = process
        #: (path, content hash, the pipe its facts come through) of a buffer it parses.
        self._buffer = buffer

    def serves(self, cache: FactsCache | None) -> bool:
        """Whether the child fills this cache (of this project, under this salt), or
        parses a buffer, which needs none."""
        if self._buffer is not None:
            return True
        return (cache is not None and self.cache is not None
                and cache.entries == self.cache.entries and cache.place == self.cache.place)

    def parses(self, work: _Work) -> bool:
        """Whether ``work`` is the buffer the child parses: the same path and bytes."""
        return (self._buffer is not None and work.source is not None
                and self._buffer[0] == work.path
                and self._buffer[1] == content_hash(work.source))

    def buffer_facts(self) -> str | None:
        """The buffer's facts as JSON text, once the child sends them; None if it ended
        without (then the full run parses the buffer itself)."""
        assert self._buffer is not None
        try:
            text: str | None = self._buffer[2].recv_bytes().decode("utf-8")
        except (EOFError, OSError):
            text = None
        self._buffer[2].close()
        self._process.join()
        return text

    def wait(self) -> None:
        """Until the child is done (whatever it managed is in the cache; the rest, the
        full run parses itself)."""
        self._process.join()


def parse_ahead(root: Path, paths: Sequence[str], cache: FactsCache, jobs: int | None,
                max_file_size: int = 0) -> ParsedAhead | None:
    """Start parsing ``paths`` of the project at ``root`` into ``cache``, when there are
    few enough for one process (more go to the full run's pool) and a second process can
    run (more than one job, and forking, on Linux, starts it in a few milliseconds) safely
    (this process has no other thread and is no daemon). None when it does not start."""
    context = _ahead_context(jobs) if paths else None
    if context is None:
        return None
    # As few as the pool would not take (its test): sizes are looked up only when needed.
    if len(paths) >= POOL_MIN_FILES and _total_size(root, paths) >= POOL_MIN_BYTES:
        return None
    process = context.Process(
        target=_parse_into_cache, args=(root, list(paths), cache, max_file_size, os.getpid()),
        daemon=True)
    try:
        process.start()
    except OSError:  # no process to be had (a limit, no memory): the full run parses them
        return None
    return ParsedAhead(cache, frozenset(paths), process)


def parse_buffer_ahead(path: str, source: bytes, jobs: int | None) -> ParsedAhead | None:
    """Start parsing an editor's buffer (``path`` within its project) in a child, which
    sends its facts back: it imports LibCST and parses while the full run imports the
    rules and decodes every other file's facts. None when it does not start (as
    ``parse_ahead``)."""
    context = _ahead_context(jobs)
    if context is None:
        return None
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_parse_buffer, args=(path, source, send, os.getpid()),
                              daemon=True)
    try:
        process.start()
    except OSError:
        receive.close()
        return None
    finally:
        send.close()  # the child's end: its ending without a word ends the pipe
    return ParsedAhead(None, frozenset(), process, (path, content_hash(source), receive))


def _ahead_context(jobs: int | None) -> Any:
    """The fork context for a child that parses ahead, or None when none may start: one
    job, one core, not Linux (forking elsewhere is slow or unsafe), or this process has
    other threads or is a daemon."""
    if jobs == 1 or usable_cores() == 1 or not sys.platform.startswith("linux"):
        return None
    import multiprocessing
    import threading

    # A lock another thread holds when this one forks stays held in the child for good
    # (a library caller may have threads; the command line has none at this point). A
    # daemonic process may have no children.
    if threading.active_count() > 1 or multiprocessing.current_process().daemon:
        return None
    return multiprocessing.get_context("fork")


def _parse_buffer(path: str, source: bytes, send: Any, parent: int) -> None:
    """The child of ``parse_buffer_ahead``."""
    _worker_started(parent)
    try:
        send.send_bytes(_extract_json(path, source).encode("utf-8"))
    except BaseException:  # the full run parses the buffer itself, and reports any error
        os._exit(1)


def _total_size(root: Path, paths: Sequence[str]) -> int:
    size = 0
    for path in paths:
        try:
            size += os.stat(os.path.join(root, path)).st_size
        except OSError:
            pass  # gone since: the full run reports it
    return size


def _parse_into_cache(root: Path, paths: list[str], cache: FactsCache, max_file_size: int,
                      parent: int) -> None:
    """The child of ``parse_ahead``: parse each file the cache lacks and store its facts."""
    _worker_started(parent)
    try:
        for path in paths:
            try:
                source = (root / path).read_bytes()
            except OSError:
                continue  # the full run reports it
            if max_file_size and len(source) > max_file_size:
                continue  # never parsed: the full run reports it
            digest = content_hash(source)
            if not cache.has_entry(path, digest):  # touched, not changed
                work = _Work(0, path, len(source), source, store=True, digest=digest)
                next(_extract_each(root, [work], cache))
    except BaseException:  # the full run parses what is missing, and reports any error
        os._exit(1)


# prctl's option that signals a process when its parent dies, from linux/prctl.h.
_PR_SET_PDEATHSIG = 1

#: In a worker, the budget its parses share with the other workers' (None elsewhere).
_budget: ParseBudget | None = None


def _worker_started(parent: int, budget: ParseBudget | None = None) -> None:
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


def _extract_batch(root: Path, batch: Sequence[_Work],
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
        for work, result in zip(batch, _extract_each(root, batch, cache, ship=False)):
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


def _extract_each(root: Path, batch: Sequence[_Work], cache: FactsCache | None,
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
        text = _extract_json(work.path, source)
        if cache is not None and work.store:
            digest = content_hash(source)
            stored = cache.store_text(work.path, cache.encode(work.path, digest, text))
            if stored and not ship and digest == work.digest:
                yield work.index, None
                continue
        yield work.index, text


def _extract_json(path: str, source: bytes) -> str:
    from lintkit.parsing.extract import extract

    # LibCST's parser works in native memory that it frees when the tree is built, and
    # glibc keeps those pages, so what Python then allocates for the facts comes on top of
    # the parser's peak: handing them back first took the worker that parses the standard
    # library's largest module from 281 MB to 162 MB.
    after_parse = release_free_memory if len(source) >= _RELEASE_MIN_BYTES else None
    facts = extract(path, source, path.endswith("__init__.py"), after_parse,
                    _budget.admit if _budget is not None else None)
    return json.dumps(facts_to_data(facts), separators=(",", ":"))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: phase 1 creates many objects and no cycles
    (LibCST trees and facts are freed by reference counting as soon as they are dropped).

    With a project's facts alive, each full collection scans hundreds of thousands of
    objects that are never garbage: on LionAGI, collections made up about half of a warm
    run, so the engine keeps the collector paused for a whole project (nested pauses are
    fine: the outermost one restores it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
