"""The workers' shared parse budget: two large parses never run at once.

Real processes from the pool's own start method share one budget here; each test makes
a worker hold part of it and asks whether another is let in before it lets go."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from lintkit.engine import budget as budget_module
from lintkit.engine import workers
from lintkit.engine.budget import PER_WORKER_BYTES, ParseBudget, parse_budget
from lintkit.parsing.extract import extract
from lintkit.parsing.pieces import PIECEWISE_MIN_BYTES

KB = 1024
LIMIT = 2 * PER_WORKER_BYTES  # two workers' budget
FLOOR = budget_module.FLOOR_BYTES


def _hold(budget: ParseBudget, size: int, entered: Any, release: Any, leaving: Any) -> None:
    with budget.admit(size):
        entered.set()
        release.wait(30)
        leaving.set()  # before it lets go: one let in only then sees it set


def _ask(budget: ParseBudget, size: int, entered: Any, leaving: Any, answers: Any) -> None:
    entered.wait(30)
    with budget.admit(size):
        answers.put(leaving.is_set())  # True: let in only once the holder let go


def _second_parse_waits(held: int, asked: int) -> bool:
    """Whether a parse of ``asked`` bytes waited for one of ``held`` bytes to finish."""
    context = workers._pool_context()
    budget = ParseBudget(context, LIMIT)
    entered, release, leaving = context.Event(), context.Event(), context.Event()
    answers = context.Queue()
    holder = context.Process(target=_hold, args=(budget, held, entered, release, leaving))
    asker = context.Process(target=_ask, args=(budget, asked, entered, leaving, answers))
    holder.start()
    asker.start()
    try:
        try:
            # Let in at once, it answers while the holder still holds; kept out, it does not.
            waited = answers.get(timeout=1.0)
        except queue.Empty:  # it is waiting
            release.set()
            waited = answers.get(timeout=30)
        release.set()
    finally:
        for process in (holder, asker):
            process.join(30)
    return bool(waited)


def test_a_parse_that_would_exceed_the_budget_waits() -> None:
    assert _second_parse_waits(LIMIT - 40 * KB, 64 * KB)


def test_a_parse_larger_than_the_budget_runs_alone() -> None:
    assert _second_parse_waits(3 * LIMIT, FLOOR)


def test_parses_that_fit_together_run_together() -> None:
    assert not _second_parse_waits(LIMIT // 2, LIMIT // 2)


def test_a_small_parse_never_waits() -> None:
    assert not _second_parse_waits(3 * LIMIT, FLOOR - 1)


def test_the_budget_grows_with_the_workers() -> None:
    """More workers (--jobs) still parse large modules side by side; one shares nothing."""
    context = workers._pool_context()
    assert parse_budget(context, 1) is None
    two, eight = parse_budget(context, 2), parse_budget(context, 8)
    assert two is not None and eight is not None
    assert two.limit == LIMIT and eight.limit == 4 * LIMIT


def _ask_once_reserved(budget: ParseBudget, size: int, leaving: Any, answers: Any) -> None:
    deadline = time.monotonic() + 30
    while budget._reserved.value == 0 and time.monotonic() < deadline:
        time.sleep(0.01)  # until the large parse has asked, and waits
    with budget.admit(size):
        answers.put(leaving.is_set())  # True: let in only once the large parse let go


def _hold_after(budget: ParseBudget, size: int, before: Any, entered: Any, release: Any,
                leaving: Any) -> None:
    before.wait(30)
    _hold(budget, size, entered, release, leaving)


def test_a_waiting_large_parse_is_not_overtaken_by_ones_that_fit() -> None:
    """One worker parses 16 KB; another asks for more than the budget and waits; a third
    asks for 16 KB, which would fit beside the first, and is let in only after the large
    one: with many workers, parses that fit would otherwise starve the large one."""
    context = workers._pool_context()
    budget = ParseBudget(context, LIMIT)
    small_in, small_release, small_leaving = context.Event(), context.Event(), context.Event()
    large_in, large_release, large_leaving = context.Event(), context.Event(), context.Event()
    answers = context.Queue()
    processes = [
        context.Process(target=_hold, args=(budget, 16 * KB, small_in, small_release,
                                            small_leaving)),
        context.Process(target=_hold_after, args=(budget, 3 * LIMIT, small_in, large_in,
                                                  large_release, large_leaving)),
        context.Process(target=_ask_once_reserved, args=(budget, 16 * KB, large_leaving,
                                                         answers)),
    ]
    for process in processes:
        process.start()
    try:
        with pytest.raises(queue.Empty):
            answers.get(timeout=1.0)  # the late small parse waits behind the large one
        small_release.set()
        assert large_in.wait(30)
        large_release.set()
        assert answers.get(timeout=30) is True
    finally:
        small_release.set()
        large_release.set()
        for process in processes:
            process.join(30)


def _hold_forever(budget: ParseBudget, entered: Any) -> None:
    with budget.admit(3 * LIMIT):
        entered.set()
        while True:
            pass  # a worker stuck, or one that died holding its share


def test_a_worker_holding_the_budget_forever_does_not_stall_the_other(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget_module, "WAIT_SECONDS", 0.5)
    context = workers._pool_context()
    budget = ParseBudget(context, LIMIT)
    entered, never, answers = context.Event(), context.Event(), context.Queue()
    holder = context.Process(target=_hold_forever, args=(budget, entered), daemon=True)
    holder.start()
    try:
        asker = context.Process(target=_ask, args=(budget, LIMIT, entered, never, answers))
        asker.start()
        assert answers.get(timeout=30) is False  # let in after the wait, holder still there
        asker.join(30)
    finally:
        holder.terminate()
        holder.join(30)


def _recording(sizes: list[int]) -> Any:
    @contextmanager
    def admit(size: int) -> Iterator[None]:
        sizes.append(size)
        yield

    return admit


def test_each_parse_of_a_module_is_admitted_with_its_size() -> None:
    small = b"import os\n\nvalue = os.sep\n"
    sizes: list[int] = []
    extract("small.py", small, False, admit=_recording(sizes))
    assert sizes == [len(small)]
    # A large module is parsed in pieces: each is admitted with its own size.
    statement = b"def f%d(x):\n    return [x, %d, 'padding padding padding padding']\n\n"
    large = b"".join(statement % (n, n) for n in range(PIECEWISE_MIN_BYTES // 60))
    sizes.clear()
    facts = extract("large.py", large, False, admit=_recording(sizes))
    assert facts.error is None and len(sizes) > 1
    assert sum(sizes) == len(large) and max(sizes) < PIECEWISE_MIN_BYTES
