"""The phase-1 content cache: hits, invalidation, damaged entries, and the CLI around it.

Every test runs phase 1 (or the command) on a real project in a temporary directory.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

import lintkit
from lintkit.core.facts import facts_to_data
from lintkit.engine import phase1
from lintkit.engine.cache import FactsCache, cache_salt, is_cache_directory
from lintkit.engine.phase1 import Phase1Options, run_phase1
from tests.phase1_support import BAD, make_project, run

PATHS = ["src/pkg/__init__.py", "src/pkg/bad.py", "src/pkg/base.py", "src/pkg/broken.py",
         "src/pkg/clean.py", "src/pkg/kept.py", "src/pkg/mid.py"]
IMPORTTIME = {"PYTHONPROFILEIMPORTTIME": "1"}  # each import is listed on stderr


def _run(root: Path, jobs: int = 1, overrides: dict[str, bytes] | None = None) -> phase1.Phase1Result:
    options = Phase1Options(cache_dir=root / ".lion-lint-cache", jobs=jobs)
    return run_phase1(root, PATHS, overrides or {}, options)


def _data(result: phase1.Phase1Result) -> list[dict]:
    return [facts_to_data(f) for f in result.facts]


def _entries(root: Path) -> list[Path]:
    return sorted((root / ".lion-lint-cache").glob("facts-*/*/*.json"))


def test_a_warm_run_parses_nothing_and_gives_the_same_facts(tmp_path: Path) -> None:
    make_project(tmp_path)
    cold = _run(tmp_path)
    assert cold.parsed == PATHS and cold.from_cache == 0
    assert len(_entries(tmp_path)) == len(PATHS)
    warm = _run(tmp_path)
    assert warm.parsed == [] and warm.from_cache == len(PATHS)
    assert _data(warm) == _data(cold)
    assert [f.path for f in warm.facts] == PATHS
    # The parse error is a per-file result and comes back from the cache too.
    assert warm.facts[3].error is not None and warm.facts[3].error.line == 1


def test_the_cache_directory_keeps_itself_out_of_git_and_backups(tmp_path: Path) -> None:
    make_project(tmp_path)
    _run(tmp_path)
    cache = tmp_path / ".lion-lint-cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert is_cache_directory(cache)
    assert not list(cache.rglob(".tmp-*")), "a temporary file was left behind"


def test_changed_content_is_parsed_again_and_only_that_file(tmp_path: Path) -> None:
    make_project(tmp_path)
    _run(tmp_path)
    (tmp_path / "src/pkg/bad.py").write_text(BAD.replace("class Bad", "class Worse"), "utf-8")
    again = _run(tmp_path)
    assert again.parsed == ["src/pkg/bad.py"]
    assert [c.name for c in again.facts[1].classes] == ["Worse"]
    # The old text restored (an edit undone) is the entry the new one replaced, kept beside.
    (tmp_path / "src/pkg/bad.py").write_text(BAD, "utf-8")
    restored = _run(tmp_path)
    assert restored.parsed == [] and [c.name for c in restored.facts[1].classes] == ["Bad"]
    # The content restored is made current again, so that the one kept beside the next
    # edit is it, not the edit undone: undone again, it is served once more...
    (tmp_path / "src/pkg/bad.py").write_text(BAD.replace("class Bad", "class Third"), "utf-8")
    assert _run(tmp_path).parsed == ["src/pkg/bad.py"]
    (tmp_path / "src/pkg/bad.py").write_text(BAD, "utf-8")
    assert _run(tmp_path).parsed == []
    # ...and one previous content is kept, not more: the first edit, two contents back
    # now, is parsed again.
    (tmp_path / "src/pkg/bad.py").write_text(BAD.replace("class Bad", "class Worse"), "utf-8")
    assert _run(tmp_path).parsed == ["src/pkg/bad.py"]
    assert len(_entries(tmp_path)) == len(PATHS)
    assert len(list((tmp_path / ".lion-lint-cache").glob("facts-*/*/*.json.prev"))) == 1


def test_a_new_lion_lint_version_ignores_old_entries(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    _run(tmp_path)
    monkeypatch.setattr(lintkit, "__version__", "999.0.0")
    assert _run(tmp_path).parsed == PATHS
    assert _run(tmp_path).parsed == []


def test_a_new_facts_version_ignores_old_entries(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    _run(tmp_path)
    monkeypatch.setattr(phase1, "FACTS_VERSION", phase1.FACTS_VERSION + 1)
    assert _run(tmp_path).parsed == PATHS


def test_a_change_of_phase1_settings_ignores_old_entries(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    _run(tmp_path)
    # No setting changes extraction today; one that does is part of the key through here.
    monkeypatch.setattr(phase1, "phase1_settings", lambda settings: {"target-version": "3.13"})
    assert _run(tmp_path).parsed == PATHS
    assert _run(tmp_path).parsed == []


def test_entries_under_another_salt_are_never_served(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    first = FactsCache(directory, tmp_path, cache_salt("1.0", 1, {"a": 1}))
    second = FactsCache(directory, tmp_path, cache_salt("1.0", 1, {"a": 2}))
    facts = json.dumps({"path": "m.py"})
    first.store_text("m.py", first.encode("m.py", "hash", facts))
    assert first.load("m.py", "hash") == {"path": "m.py"}
    assert second.load("m.py", "hash") is None
    assert first.load("m.py", "other-hash") is None
    assert first.load("n.py", "hash") is None


def test_projects_sharing_a_cache_directory_keep_apart(tmp_path: Path) -> None:
    shared = tmp_path / "shared-cache"
    for name in ("one", "two"):
        make_project(tmp_path / name)
    (tmp_path / "two/src/pkg/bad.py").write_text(BAD.replace("class Bad", "class Two"), "utf-8")
    for _ in range(2):
        for name in ("one", "two"):
            result = run_phase1(tmp_path / name, PATHS, {}, Phase1Options(cache_dir=shared, jobs=1))
            assert [c.name for c in result.facts[1].classes] == ["Bad" if name == "one" else "Two"]
    assert result.parsed == []


DAMAGE = {
    "truncated": lambda text: text[: len(text) // 2],
    "empty": lambda text: "",
    "not json": lambda text: "\x00\xff garbage {",
    "a list": lambda text: "[1, 2, 3]",
    "another file's entry": lambda text: text.replace('"src/pkg/bad.py"', '"src/pkg/base.py"'),
    "another content hash": lambda text: text.replace('"hash":"', '"hash":"0'),
    "another salt": lambda text: text.replace('"salt":"', '"salt":"x'),
    "malformed facts": lambda text: text.replace('"classes":[', '"classes":[7,'),
    "facts of the wrong shape": lambda text: text.replace('"imports":[', '"imports":5,"x":['),
    "deeply nested": lambda text: "[" * 100000 + "]" * 100000,
}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_or_foreign_entry_is_rebuilt_never_trusted(tmp_path: Path, damage: str) -> None:
    make_project(tmp_path)
    cold = _run(tmp_path)
    entry = FactsCache(tmp_path / ".lion-lint-cache", tmp_path,
                       cache_salt(lintkit.__version__, phase1.FACTS_VERSION, {})).entry_path("src/pkg/bad.py")
    entry.write_text(DAMAGE[damage](entry.read_text("utf-8")), "utf-8")
    again = _run(tmp_path)
    assert again.parsed == ["src/pkg/bad.py"]
    assert _data(again) == _data(cold)
    assert _run(tmp_path).parsed == [], "the entry was not rebuilt"


def test_damage_inside_a_calls_stored_text_is_caught_when_the_entry_is_read(
        tmp_path: Path) -> None:
    """A call's arguments stay text until a rule reads them, so damage that still parses
    as JSON would surface in a rule, as a crash: the entry's checksum catches it first."""
    make_project(tmp_path)
    (tmp_path / "src/pkg/calls.py").write_text("print(len([1, 2]), sep='')\n", "utf-8")
    paths = [*PATHS, "src/pkg/calls.py"]
    options = Phase1Options(cache_dir=tmp_path / ".lion-lint-cache", jobs=1)
    cold = run_phase1(tmp_path, paths, {}, options)
    entry = FactsCache(tmp_path / ".lion-lint-cache", tmp_path,
                       cache_salt(lintkit.__version__, phase1.FACTS_VERSION, {})).entry_path("src/pkg/calls.py")
    text = entry.read_text("utf-8")
    damaged = text.replace(";[[", ";[[[", 1)  # the JSON inside print's stored text breaks
    assert damaged != text and json.loads(damaged)  # the entry as a whole still parses
    entry.write_text(damaged, "utf-8")
    again = run_phase1(tmp_path, paths, {}, options)
    assert again.parsed == ["src/pkg/calls.py"]
    assert [c.call for c in again.facts[-1].calls] == [c.call for c in cold.facts[-1].calls]


def test_a_cache_that_cannot_be_written_costs_speed_not_results(tmp_path: Path) -> None:
    make_project(tmp_path)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory should be", "utf-8")
    options = Phase1Options(cache_dir=blocked / "cache", jobs=1)
    first = run_phase1(tmp_path, PATHS, {}, options)
    second = run_phase1(tmp_path, PATHS, {}, options)
    assert second.parsed == PATHS
    assert _data(first) == _data(_run(tmp_path))


def test_an_editor_buffer_is_linted_but_never_cached(tmp_path: Path) -> None:
    make_project(tmp_path)
    buffer = BAD.replace("class Bad", "class Unsaved").encode()
    result = _run(tmp_path, overrides={"src/pkg/bad.py": buffer})
    assert [c.name for c in result.facts[1].classes] == ["Unsaved"]
    assert len(_entries(tmp_path)) == len(PATHS) - 1
    after = _run(tmp_path)
    assert after.parsed == ["src/pkg/bad.py"]
    assert [c.name for c in after.facts[1].classes] == ["Bad"]


# --- through the command line -------------------------------------------------------------

def test_cli_output_is_identical_cold_warm_and_without_the_cache(tmp_path: Path) -> None:
    make_project(tmp_path)
    runs = [run("check", "--output-format", "json", cwd=tmp_path) for _ in range(2)]
    runs.append(run("check", "--output-format", "json", "--no-cache", cwd=tmp_path))
    assert [r.returncode for r in runs] == [1, 1, 1]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    codes = sorted(d["code"] for d in json.loads(runs[0].stdout)["diagnostics"])
    assert codes == ["LL000", "LL001"]


def test_a_warm_run_does_not_import_libcst(tmp_path: Path) -> None:
    make_project(tmp_path)
    cold = run("check", cwd=tmp_path, env=IMPORTTIME)
    assert "libcst" in cold.stderr  # the check is able to see the import
    warm = run("check", cwd=tmp_path, env=IMPORTTIME)
    assert warm.returncode == 1
    assert "libcst" not in warm.stderr
    # Changing a rule's options changes no facts: the cache still holds.
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"pkg.base.Params"', '"pkg.base.Other"'))
    retuned = run("check", cwd=tmp_path, env=IMPORTTIME)
    assert retuned.returncode == 1 and "libcst" not in retuned.stderr


def test_a_cache_restored_into_a_fresh_checkout_parses_nothing(tmp_path: Path) -> None:
    # CI restores .lion-lint-cache into a new clone: another directory, every mtime new.
    first = make_project(tmp_path / "first")
    before = run("check", "--output-format", "json", cwd=first)
    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(first, clone, ignore=shutil.ignore_patterns(".lion-lint-cache"))
    shutil.copytree(first / ".lion-lint-cache", clone / ".lion-lint-cache")
    for source in clone.rglob("*.py"):
        source.touch()
    after = run("check", "--output-format", "json", cwd=clone, env=IMPORTTIME)
    assert after.returncode == before.returncode == 1
    assert "libcst" not in after.stderr, "a restored cache should spare every parse"
    assert after.stdout == before.stdout


def test_no_cache_writes_nothing_and_cache_dir_moves_it(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", "--no-cache", cwd=tmp_path)
    assert not (tmp_path / ".lion-lint-cache").exists()
    run("check", "--cache-dir", "elsewhere", cwd=tmp_path)
    assert not (tmp_path / ".lion-lint-cache").exists()
    assert is_cache_directory(tmp_path / "elsewhere")


def test_the_cache_dir_setting_is_relative_to_the_project_root(tmp_path: Path) -> None:
    make_project(tmp_path)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "[tool.lion-lint]\n", '[tool.lion-lint]\ncache-dir = "build/lint-cache"\n'))
    run("check", "src/pkg", cwd=tmp_path)
    assert is_cache_directory(tmp_path / "build/lint-cache")
    cleaned = run("clean", cwd=tmp_path / "src")
    assert cleaned.returncode == 0, cleaned.stderr
    assert not (tmp_path / "build/lint-cache").exists()


def test_clean_removes_the_caches_of_projects_nested_below_the_paths(tmp_path: Path) -> None:
    # `lion-lint examples/` lints and caches each nested project on its own; `clean
    # examples` must reach the same projects, at any depth, and nothing outside the path.
    for name in ("examples/a", "examples/deep/b", "elsewhere"):
        make_project(tmp_path / name)
    (tmp_path / "pyproject.toml").write_text("[tool.lion-lint]\n")
    assert run("check", "examples", "elsewhere", cwd=tmp_path).returncode == 1
    caches = [tmp_path / name / ".lion-lint-cache"
              for name in ("examples/a", "examples/deep/b", "elsewhere")]
    assert all(cache.is_dir() for cache in caches)

    cleaned = run("clean", "examples", cwd=tmp_path)

    assert cleaned.returncode == 0, cleaned.stderr
    assert not caches[0].exists() and not caches[1].exists()
    assert caches[2].is_dir()
    assert f"removed {caches[1]}" in cleaned.stderr


def test_clean_removes_the_cache_and_refuses_other_directories(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    assert (tmp_path / ".lion-lint-cache").is_dir()
    removed = run("clean", cwd=tmp_path)
    assert removed.returncode == 0 and "removed" in removed.stderr
    assert not (tmp_path / ".lion-lint-cache").exists()
    assert run("clean", cwd=tmp_path).returncode == 0  # nothing to remove is fine
    precious = tmp_path / "src"
    refused = run("clean", "--cache-dir", precious, cwd=tmp_path)
    assert refused.returncode == 2
    assert "not a lion-lint cache" in refused.stderr
    assert (precious / "pkg/base.py").is_file()


def _tree(directory: Path) -> list[str]:
    return sorted(str(path.relative_to(directory)) for path in directory.rglob("*"))


@pytest.mark.parametrize("cache_dir", [".", "..", "src/.."])
def test_the_project_itself_is_never_taken_for_the_cache(tmp_path: Path, cache_dir: str) -> None:
    # The cache directory is tagged, git-ignored as a whole and deleted by `clean`: the
    # project (or a directory above it) in its place would vanish from git, then from disk.
    project = tmp_path / "project"
    make_project(project)
    before = _tree(tmp_path)

    refused = run("check", "--cache-dir", cache_dir, cwd=project)

    assert refused.returncode == 2, refused.stderr
    assert "cannot keep the cache in" in refused.stderr
    assert "project's own directory" in refused.stderr
    assert _tree(tmp_path) == before, "a refused cache directory must not be written to"


def test_a_directory_holding_other_files_is_not_taken_for_the_cache(tmp_path: Path) -> None:
    make_project(tmp_path)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/todo.txt").write_text("keep me\n")

    refused = run("check", "--cache-dir", "notes", cwd=tmp_path)

    assert refused.returncode == 2
    assert "holds files, and no CACHEDIR.TAG" in refused.stderr
    assert _tree(tmp_path / "notes") == ["todo.txt"]
    (tmp_path / "empty").mkdir()
    assert run("check", "--cache-dir", "empty", cwd=tmp_path).returncode == 1
    assert is_cache_directory(tmp_path / "empty")
    assert run("check", "--cache-dir", "empty", cwd=tmp_path).returncode == 1  # its own: reused


def test_clean_keeps_a_tagged_directory_that_holds_files_lion_lint_did_not_write(
        tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    cache = tmp_path / ".lion-lint-cache"
    (cache / "mine.txt").write_text("not the cache's\n")

    refused = run("clean", cwd=tmp_path)

    assert refused.returncode == 2
    assert "did not write (mine.txt)" in refused.stderr
    assert (cache / "mine.txt").is_file() and (cache / "CACHEDIR.TAG").is_file()
    (cache / "mine.txt").unlink()
    assert run("clean", cwd=tmp_path).returncode == 0
    assert not cache.exists()


def _leave_salt(cache: Path, salt: str, days_ago: float, stamped: bool = True) -> None:
    """Entries under another salt, as another lion-lint left them ``days_ago`` days ago."""
    for kind in ("facts", "results"):
        shard = cache / f"{kind}-{salt}" / "ab"
        shard.mkdir(parents=True)
        (shard / "entry.json").write_text("{}")
    when = time.time() - days_ago * 24 * 3600
    if stamped:
        (cache / f"facts-{salt}" / "used").write_text("")
        os.utime(cache / f"facts-{salt}" / "used", (when, when))
    for kind in ("facts", "results"):
        os.utime(cache / f"{kind}-{salt}", (when, when))


def test_a_run_that_writes_removes_salts_unused_for_a_month(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    cache = tmp_path / ".lion-lint-cache"
    (current,) = [p.name[len("facts-"):] for p in cache.glob("facts-*")]
    _leave_salt(cache, "0" * 16, days_ago=40)
    _leave_salt(cache, "1" * 16, days_ago=10)
    _leave_salt(cache, "2" * 16, days_ago=40, stamped=False)  # from before the stamp

    run("check", cwd=tmp_path)  # warm: replays, writes nothing, removes nothing
    assert len(list(cache.glob("facts-*"))) == 4 and len(list(cache.glob("results-*"))) == 4

    (tmp_path / "src/pkg/bad.py").write_text(BAD.replace("class Bad", "class Worse"), "utf-8")
    assert run("check", cwd=tmp_path).returncode == 1

    left = sorted(p.name for p in cache.iterdir() if p.name.startswith(("facts-", "results-")))
    assert left == sorted([f"facts-{current}", f"results-{current}",
                           f"facts-{'1' * 16}", f"results-{'1' * 16}"])
    # This run's salt is marked as used now.
    assert time.time() - (cache / f"facts-{current}" / "used").stat().st_mtime < 600
    assert run("clean", cwd=tmp_path).returncode == 0 and not cache.exists()


def _plant(path: Path, hours_ago: float) -> Path:
    path.write_text('{"salt":', "utf-8")  # what a process killed mid-write leaves
    when = time.time() - hours_ago * 3600
    os.utime(path, (when, when))
    return path


def test_temporary_files_of_killed_writes_are_swept_once_a_day(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    cache = tmp_path / ".lion-lint-cache"
    (facts,) = cache.glob("facts-*")
    (results,) = cache.glob("results-*")
    entry_directory = _entries(tmp_path)[0].parent
    abandoned = [_plant(entry_directory / ".tmp-abandoned", hours_ago=2),
                 _plant(results / ".tmp-abandoned", hours_ago=30),
                 _plant(cache / ".tmp-abandoned", hours_ago=2)]
    in_flight = _plant(entry_directory / ".tmp-in-flight", hours_ago=0)
    kept_json = _entries(tmp_path)

    def edit(name: str) -> None:
        (tmp_path / "src/pkg/bad.py").write_text(BAD.replace("class Bad", name), "utf-8")
        assert run("check", cwd=tmp_path).returncode == 1

    edit("class Worse")  # a writing run, but the first one swept today
    assert all(path.exists() for path in abandoned)

    when = time.time() - 25 * 3600
    os.utime(facts / "swept", (when, when))
    assert run("check", cwd=tmp_path).returncode == 1  # warm: writes nothing, sweeps nothing
    assert all(path.exists() for path in abandoned)

    edit("class Worst")
    assert not any(path.exists() for path in abandoned)
    assert in_flight.exists() and set(kept_json) <= set(_entries(tmp_path))
    assert time.time() - (facts / "swept").stat().st_mtime < 600
    assert run("clean", cwd=tmp_path).returncode == 0 and not cache.exists()
