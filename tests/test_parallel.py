"""Phase 1 in worker processes gives what it gives in one process, for every --jobs value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lintkit.core.facts import facts_to_data
from lintkit.engine import budget, phase1, workers
from lintkit.engine.discovery import discover
from lintkit.engine.cache import content_hash
from lintkit.engine.phase1 import Phase1Options, run_phase1
from lintkit.engine.workers import Work, _batches
from lintkit.config.model import Settings
from tests.phase1_support import make_project, run

FILLERS = 16  # enough source (about 110 KB) that phase 1 uses a pool


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("parallel"), fillers=FILLERS)


def _paths(root: Path) -> list[str]:
    return discover(root, Settings(respect_gitignore=False))[0]


def test_a_pool_gives_the_facts_of_one_process(project: Path) -> None:
    """Without a cache the workers send their facts back as text, decoded once they have
    ended; each file is reported done once, in order."""
    paths = _paths(project)
    alone = run_phase1(project, paths, {}, Phase1Options(jobs=1))
    seen: list[int] = []
    pooled = run_phase1(project, paths, {}, Phase1Options(jobs=2),
                        lambda done, total: seen.append(done))
    assert alone.workers == 0 and pooled.workers == 2
    assert seen == list(range(1, len(paths) + 1))
    assert [facts_to_data(f) for f in pooled.facts] == [facts_to_data(f) for f in alone.facts]
    assert [f.path for f in pooled.facts] == paths  # the order asked for, whatever the pool did


def test_a_pool_fills_the_cache_that_one_process_then_reads(project: Path, tmp_path: Path) -> None:
    paths = _paths(project)
    options = Phase1Options(cache_dir=tmp_path / "cache", jobs=2)
    pooled = run_phase1(project, paths, {}, options)
    assert pooled.workers == 2 and len(pooled.parsed) == len(paths)
    warm = run_phase1(project, paths, {}, Phase1Options(cache_dir=tmp_path / "cache", jobs=1))
    assert warm.parsed == []
    assert [facts_to_data(f) for f in warm.facts] == [facts_to_data(f) for f in pooled.facts]


def test_a_few_small_files_stay_in_process(tmp_path: Path) -> None:
    make_project(tmp_path)
    result = run_phase1(tmp_path, _paths(tmp_path), {}, Phase1Options(jobs=4))
    assert result.workers == 0 and len(result.parsed) == 7


def test_batches_cover_every_file_once_largest_first_and_shrink() -> None:
    work = [Work(i, f"m{i}.py", size, None, False)
            for i, size in enumerate([5_000, 300_000, 40_000, 120_000, 800, 60_000] * 20)]
    batches = _batches(work, jobs=2)
    assert sorted(w.index for batch in batches for w in batch) == list(range(len(work)))
    sizes = [w.size for batch in batches for w in batch]
    assert sizes == sorted(sizes, reverse=True)
    totals = [sum(w.size for w in batch) for batch in batches]
    assert totals[-1] < totals[0] / 4  # the last batches are small: workers finish together
    assert len(batches) >= 2 * 2


@pytest.mark.parametrize("cache", [False, True], ids=["no-cache", "cache"])
def test_cli_diagnostics_are_identical_for_every_jobs_value(project: Path, tmp_path: Path,
                                                            cache: bool) -> None:
    outputs = {}
    for jobs in (1, 2, 3):
        flags = ["--no-cache"] if not cache else ["--cache-dir", tmp_path / f"cache-{jobs}"]
        result = run("check", "--output-format", "json", "--jobs", str(jobs), *flags,
                         cwd=project)
        assert result.returncode == 1, result.stderr
        outputs[jobs] = result.stdout
    assert outputs[1] == outputs[2] == outputs[3]
    codes = sorted(d["code"] for d in json.loads(outputs[1])["diagnostics"])
    assert codes == ["LL000", "LL001"]


def test_jobs_must_be_positive(project: Path) -> None:
    result = run("check", "--jobs", "0", cwd=project)
    assert result.returncode == 2
    assert "--jobs" in result.stderr


def test_usable_cores_is_at_least_one() -> None:
    assert workers.usable_cores() >= 1


def test_a_change_among_many_hits_is_parsed_by_a_worker_meanwhile(tmp_path: Path) -> None:
    """One changed file in a large warm project: a worker imports LibCST and parses it while
    this process decodes the cached facts; the facts are those of a run in one process."""
    make_project(tmp_path)
    for number in range(workers.OVERLAP_MIN_HITS):
        (tmp_path / f"src/pkg/small_{number:03d}.py").write_text(f"value = f({number})\n")
    paths = _paths(tmp_path)
    cached = Phase1Options(cache_dir=tmp_path / "cache", jobs=2)
    cold = run_phase1(tmp_path, paths, {}, cached)
    assert cold.workers == 0  # many tiny files and nothing cached: not worth a pool
    (tmp_path / "src/pkg/small_007.py").write_text("value = g(7)\n")
    warm = run_phase1(tmp_path, paths, {}, cached)
    assert warm.parsed == ["src/pkg/small_007.py"] and warm.workers == 1
    alone = run_phase1(tmp_path, paths, {}, Phase1Options(jobs=1))
    assert [facts_to_data(f) for f in warm.facts] == [facts_to_data(f) for f in alone.facts]


def _facts(result: phase1.Phase1Result) -> list[dict[str, object]]:
    return [facts_to_data(f) for f in result.facts]


def test_a_pool_with_a_cache_gives_the_facts_of_one_process(project: Path,
                                                             tmp_path: Path) -> None:
    """The workers store what they parse and send none of it back: this process loads it
    from the cache once they have ended. Each file is reported done once, in order."""
    paths = _paths(project)
    seen: list[tuple[int, int]] = []
    pooled = run_phase1(project, paths, {}, Phase1Options(cache_dir=tmp_path / "cache", jobs=2),
                        lambda done, total: seen.append((done, total)))
    alone = run_phase1(project, paths, {}, Phase1Options(jobs=1))
    assert pooled.workers == 2 and pooled.from_cache == 0
    assert _facts(pooled) == _facts(alone)
    assert [done for done, _ in seen] == list(range(1, len(paths) + 1))


def test_what_a_worker_stored_is_parsed_again_when_the_entry_is_damaged(project: Path,
                                                                        tmp_path: Path) -> None:
    """Entries damaged between a worker's store and this process's load (here by the
    progress report, which comes as each file is stored): their files are parsed again."""
    paths = _paths(project)
    cache_dir = tmp_path / "cache"

    def damage(done: int, total: int) -> None:
        for entry in cache_dir.rglob("*.json"):
            entry.write_bytes(entry.read_bytes()[:40])

    pooled = run_phase1(project, paths, {}, Phase1Options(cache_dir=cache_dir, jobs=2), damage)
    alone = run_phase1(project, paths, {}, Phase1Options(jobs=1))
    assert pooled.workers == 2 and len(pooled.parsed) == len(paths)  # each counted once
    assert _facts(pooled) == _facts(alone)


def _batch_of_one(root: Path, cache: phase1.FactsCache, digest: str) -> list[tuple[int, object]]:
    work = Work(0, "src/pkg/bad.py", (root / "src/pkg/bad.py").stat().st_size, None,
                store=True, digest=digest)
    return workers._extract_batch(root, [work], cache)


def test_a_worker_sends_the_text_only_of_what_the_cache_cannot_serve(project: Path,
                                                                      tmp_path: Path) -> None:
    settings = Settings(respect_gitignore=False)
    cache = phase1.facts_cache(project, tmp_path / "cache", settings)
    digest = content_hash((project / "src/pkg/bad.py").read_bytes())
    assert _batch_of_one(project, cache, digest) == [(0, None)]
    assert cache.load("src/pkg/bad.py", digest) is not None
    # Changed on disk since the survey hashed it: the entry is not the one asked for.
    [(_, stale)] = _batch_of_one(project, cache, "0" * len(digest))
    assert isinstance(stale, str) and "bad.py" in stale
    # A cache that cannot be written (a file where its shard directory would go).
    blocked = phase1.facts_cache(project, tmp_path / "blocked", settings)
    shard = blocked.entry_path("src/pkg/bad.py").parent
    shard.parent.mkdir(parents=True)
    shard.write_text("not a directory\n")
    [(_, unstored)] = _batch_of_one(project, blocked, digest)
    assert isinstance(unstored, str) and "bad.py" in unstored


def test_a_pool_whose_budget_lets_one_parse_at_a_time_gives_the_same_facts(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every module here is larger than this budget, so each parse runs alone."""
    monkeypatch.setattr(budget, "PER_WORKER_BYTES", 1024)
    monkeypatch.setattr(budget, "FLOOR_BYTES", 512)
    paths = _paths(project)
    pooled = run_phase1(project, paths, {}, Phase1Options(jobs=2))
    alone = run_phase1(project, paths, {}, Phase1Options(jobs=1))
    assert pooled.workers == 2 and _facts(pooled) == _facts(alone)
