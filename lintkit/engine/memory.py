"""The memory of lion-lint's processes: the C heap's freed pages handed back, one arena,
and the cyclic garbage collector paused where it would find nothing.

LibCST's parser and the facts' text allocate and free hundreds of megabytes over a run,
and glibc keeps what is freed for the process's next allocations. Phase 1 (its workers,
and the main process while it decodes) asks glibc to hand those pages back to the
system at the points where they are known to be free. Elsewhere than glibc, nothing.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def release_free_memory() -> None:
    """Return the C heap's free pages to the system (glibc only; elsewhere nothing).

    glibc keeps memory that a program frees for its next allocations, so without this a
    worker that once parsed a large module holds its peak to the end of the run: on the
    standard library, 360 MB and 190 MB for two workers instead of 60 to 130 MB each."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def one_malloc_arena() -> None:
    """Keep this process's C heap to one arena (glibc only; elsewhere nothing).

    The worker pool's results are received by a thread of this process, and glibc gives
    a second thread an arena of its own. The facts' text it receives lands there and is
    freed once decoded, but glibc hands back the free top of only its main arena: on the
    standard library the other kept some 45 MB, and a cold run ended phase 1 at 293 MB
    against 259 MB warm, with the same objects. With one arena that memory is reused by
    the decoding. glibc fixes the limit the first time a thread asks for an arena, so it
    holds for the rest of the process; threads then share the arena's lock, which the GIL
    mostly serialises anyway. A ``MALLOC_ARENA_MAX`` in the environment is the user's
    choice and is left alone."""
    mallopt = libc_function("mallopt")
    if mallopt is not None and "MALLOC_ARENA_MAX" not in os.environ:
        mallopt(_M_ARENA_MAX, 1)


# mallopt's parameter number for the arena limit, from glibc's malloc.h.
_M_ARENA_MAX = -8


def _malloc_trim() -> Callable[[int], int] | None:
    return libc_function("malloc_trim")


@functools.cache
def libc_function(name: str) -> Callable[..., int] | None:
    """The C library's function ``name``, or None off Linux or where the C library lacks
    it (glibc's extensions: ``malloc_trim``, ``mallopt``; Linux's ``prctl``)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return getattr(ctypes.CDLL(None), name)  # type: ignore[no-any-return]
    except (AttributeError, OSError):  # musl and other C libraries lack glibc's extensions
        return None


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
