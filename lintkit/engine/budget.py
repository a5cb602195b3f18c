"""The parse budget: how many bytes of source phase 1's workers parse at once.

LibCST's native parser needs working memory in proportion to what it parses and frees
it when the tree is built, so the run's memory peaks where large parses overlap. The
workers share one ``ParseBudget`` (made by the engine, handed to each worker as it
starts) and enter it around every parse (``lintkit.parsing.extract``'s ``admit``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# The workers together parse at most this many bytes at once per worker (one larger piece
# runs alone), and parses below the floor do not count: LibCST's native working memory is
# some 0.5 MB per KB of code, and a worker rests at about 60 MB, so two workers and the
# main process stay under 300 MB where two large pieces would take them to 350 MB. Per worker,
# so that more workers (--jobs) still parse large modules side by side.
PER_WORKER_BYTES = 128 * 1024
FLOOR_BYTES = 8 * 1024
# A worker waits no longer than this for the budget: a worker that died holding some of it
# (the pool then breaks, and this process redoes its files) must not stall the other.
WAIT_SECONDS = 30.0


class ParseBudget:
    """The bytes of source the workers parse at once, shared between them.

    A LibCST parse needs native working memory in proportion to what it parses (the
    standard library's 739 KB ``pydoc_data/topics.py``, a single statement, takes 150 MB),
    and frees it when the tree is built. Two large parses at once were the run's memory
    peak, so a parse waits while the others' bytes and its own exceed the limit; a parse
    larger than the limit waits for the others to finish and then runs alone, and one below
    ``FLOOR_BYTES`` never waits.

    The first parse that has to wait reserves its bytes, and no later parse is let in
    past them: with many workers, parses that fit would otherwise keep coming while a
    large one waited for room that never came."""

    def __init__(self, context: Any, limit: int) -> None:
        self.limit = limit
        self._changed = context.Condition()
        self._in_use = context.RawValue("q", 0)
        self._reserved = context.RawValue("q", 0)  # by the parse waiting first, if any

    @contextmanager
    def admit(self, size: int) -> Iterator[None]:
        if size < FLOOR_BYTES:
            yield
            return
        with self._changed:
            if not self._fits(size, self._reserved.value):
                reserving = self._reserved.value == 0
                if reserving:
                    self._reserved.value = size
                try:
                    # The reserving parse does not wait behind its own reservation.
                    self._changed.wait_for(
                        lambda: self._fits(size, 0 if reserving else self._reserved.value),
                        timeout=WAIT_SECONDS)
                finally:
                    if reserving:
                        self._reserved.value = 0
            self._in_use.value += size
        try:
            yield
        finally:
            with self._changed:
                self._in_use.value -= size
                self._changed.notify_all()

    def _fits(self, size: int, reserved: int) -> bool:
        """Whether a parse of ``size`` may start beside what runs and ``reserved``."""
        in_use = self._in_use.value
        return (in_use == 0 and reserved == 0) or in_use + size + reserved <= self.limit


def parse_budget(context: Any, workers: int) -> ParseBudget | None:
    """The budget ``workers`` workers share (None for one: nothing to share)."""
    return ParseBudget(context, workers * PER_WORKER_BYTES) if workers > 1 else None
