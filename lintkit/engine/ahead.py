"""Parsing ahead: a few changed files, or an editor's buffer, parsed by a child process
while the run starts up.

A warm run that misses its replay because a few files changed (see
``lintkit.engine.replay``) knows which ones a tenth of a second before the full run could
start parsing them; an editor's buffer is known from the start. A child forked then
imports LibCST and parses them meanwhile, and the full run takes what it finds
(``lintkit.engine.phase1.finish_phase1``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lintkit.engine.cache import FactsCache, content_hash
from lintkit.engine.workers import (POOL_MIN_BYTES, POOL_MIN_FILES, Work, extract_each,
                                    extract_json, usable_cores, worker_started)


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

    def parses(self, work: Work) -> bool:
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
    worker_started(parent)
    try:
        send.send_bytes(extract_json(path, source).encode("utf-8"))
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
    worker_started(parent)
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
                work = Work(0, path, len(source), source, store=True, digest=digest)
                next(extract_each(root, [work], cache))
    except BaseException:  # the full run parses what is missing, and reports any error
        os._exit(1)
