"""Phase 1 for a set of files: read each file and extract its facts.

This is the part that parses, so it is the part that is cached and parallelised, and this
module decides how: every file's bytes are hashed and looked up in the content cache
(``lintkit.engine.cache``); the files that miss are parsed in this process when they are
few, and otherwise in worker processes (``lintkit.engine.workers``), while this process
decodes the hits; a few files may already be being parsed ahead of the run
(``lintkit.engine.ahead``). Whichever way a
file goes, its facts travel as the same JSON text the cache stores, so cached, parallel and
in-process runs give identical facts by construction. A run in which every file hits the
cache never imports LibCST.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lintkit.core.facts import FACTS_VERSION, FileFacts, ParseError, facts_from_data
from lintkit.engine.cache import (FactsCache, cache_salt, content_hash,
                                  unusable_cache_directory)
from lintkit.engine.memory import collector_paused, release_free_memory
from lintkit.engine.workers import Work, extract_each, extract_json, read_error, start_extraction

if TYPE_CHECKING:
    from lintkit.engine.ahead import ParsedAhead

Progress = Callable[[int, int], None]

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
    #: How many files a child parsed ahead of this run (see ``ParsedAhead``): counted in
    #: ``from_cache`` as well, or in ``parsed`` for an editor's buffer.
    ahead: int = 0


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


def analyse_file(root: Path, path: str, source: bytes | None = None) -> FileFacts:
    """The facts of one project file (``source`` stands in for the file on disk)."""
    if source is None:
        try:
            source = (root / path).read_bytes()
        except OSError as error:
            return read_error(path, error)
    return _facts_of(extract_json(path, source))


def _facts_of(text: str) -> FileFacts:
    """A file's facts from the JSON text that phase 1 writes, caches and ships."""
    return facts_from_data(json.loads(text))


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
    works: list[Work]

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
        found.works.append(Work(index, path, len(source), None if from_disk else source,
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
    hits: list[Work] = []
    todo: list[Work] = []
    awaited: list[Work] = []  # being parsed into the cache ahead of this run
    buffered: list[Work] = []  # an editor's buffer being parsed ahead of this run
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
        parsed, stop, result.workers = start_extraction(root, todo, options.jobs, cache,
                                                        len(hits) + len(awaited))
        late: list[Work] = []  # cache hits that failed to load: parsed here
        unstored: list[Work] = []  # what a worker stored but this process cannot load
        done = total - len(hits) - len(todo) - len(awaited) - len(buffered)

        def count() -> None:
            nonlocal done
            done += 1
            _decoded(done, total, progress)

        def decode(work: Work, failed: list[Work]) -> bool:
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
            unsent: list[Work] = []  # a buffer whose child ended without its facts
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
            waiting: list[tuple[Work, str | None]] = []  # text None: in the cache
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
            for index, text in extract_each(root, [*late, *unstored, *unsent], cache):
                facts[index] = _facts_of(text)  # type: ignore[arg-type]  # shipped
                if index not in in_todo:  # counted already when a worker stored it
                    count()
        except BaseException:  # Ctrl-C or a bug: the workers must not outlive the run
            stop()
            raise
    result.from_cache = len(hits) + len(awaited) - len(late)
    result.parsed = [work.path for work in (*todo, *buffered, *late)]
    # Counted by path: a file the child has stored by now was a cache hit above.
    result.ahead = len(buffered) + (sum(work.store and work.path in ahead.paths
                                        for work in found.works) if ahead is not None else 0)
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


def _decode_entry(cache: FactsCache, work: Work) -> FileFacts | None:
    data = cache.load(work.path, work.digest)
    if data is None:
        return None
    try:
        return facts_from_data(data)
    except Exception:  # a foreign or damaged entry: parse afresh
        return None


