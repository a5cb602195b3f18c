"""The results cache: a run that finds nothing changed replays the last run's diagnostics.

Each test runs the real command on a real project in a temporary directory. A replay is
told apart from a recomputation by what it does not need: with the facts entries deleted,
a replay parses nothing (no facts entry is written again, LibCST is never imported).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lintkit.engine.results import KEPT_RESULTS
from tests.phase1_support import BAD, PLUGIN, add_local_rule, make_project, rewrite_later, run

IMPORTTIME = {"PYTHONPROFILEIMPORTTIME": "1"}  # each import is listed on stderr


def _cache(root: Path) -> Path:
    return root / ".lion-lint-cache"


def _forget_facts(root: Path) -> None:
    for directory in _cache(root).glob("facts-*"):
        shutil.rmtree(directory)


def _facts_entries(root: Path) -> list[Path]:
    return sorted(_cache(root).glob("facts-*/*/*.json"))


def _results(root: Path) -> list[Path]:
    """The stored results, one file per key under the project's place."""
    return sorted(_cache(root).glob("results-*/*/*.json"))


def _replayed(root: Path, *args: str) -> str:
    """Run with the facts entries gone; assert the run was a replay; its stdout."""
    _forget_facts(root)
    done = run("check", "--output-format", "json", *args, cwd=root, env=IMPORTTIME)
    assert "libcst" not in done.stderr, "the run parsed: it was not a replay"
    assert _facts_entries(root) == []
    return done.stdout


def _recomputed(root: Path, *args: str) -> str:
    """Run with the facts entries gone; assert the run recomputed (so parsed); its stdout."""
    _forget_facts(root)
    done = run("check", "--output-format", "json", *args, cwd=root, env=IMPORTTIME)
    assert "libcst" in done.stderr, "the run replayed a result it should have recomputed"
    return done.stdout


def _codes(stdout: str) -> list[tuple[str, str]]:
    return sorted((d["code"], d["path"]) for d in json.loads(stdout)["diagnostics"])


def test_nothing_changed_replays_identical_output(tmp_path: Path) -> None:
    make_project(tmp_path)
    cold = run("check", "--output-format", "json", cwd=tmp_path)
    assert cold.returncode == 1
    assert _replayed(tmp_path) == cold.stdout
    uncached = run("check", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert uncached.stdout == cold.stdout
    assert _codes(cold.stdout) == [("LL000", "src/pkg/broken.py"), ("LL001", "src/pkg/bad.py")]


@pytest.mark.parametrize("args", [
    ("--output-format", "concise", "--show-suppressed"),
    ("--output-format", "full", "--statistics"),
    ("--output-format", "sarif"),
    ("--output-format", "concise", "src/pkg/bad.py"),
])
def test_every_output_is_the_same_replayed(tmp_path: Path, args: tuple[str, ...]) -> None:
    make_project(tmp_path)
    first = run("check", *args, "--color", "never", cwd=tmp_path)
    _forget_facts(tmp_path)
    again = run("check", *args, "--color", "never", cwd=tmp_path, env=IMPORTTIME)
    assert "libcst" not in again.stderr
    assert (again.returncode, again.stdout) == (first.returncode, first.stdout)
    if "--show-suppressed" in args:
        assert "kept for the wire format" in again.stdout  # the waiver's reason survived


def test_a_content_change_anywhere_recomputes(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    # The violation's chain crosses modules: fixing the middle class clears bad.py.
    mid = tmp_path / "src/pkg/mid.py"
    mid.write_text(mid.read_text().replace("class Mid(Params)", "class Mid"))
    assert _codes(_recomputed(tmp_path)) == [("LL000", "src/pkg/broken.py")]
    assert _codes(_replayed(tmp_path)) == [("LL000", "src/pkg/broken.py")]


def test_a_state_linted_before_replays(tmp_path: Path) -> None:
    # A branch checked out again, an edit undone: the files are as a run before the last
    # left them, and that run's result answers (one job: no child parses ahead).
    make_project(tmp_path)
    first = run("check", "--output-format", "json", cwd=tmp_path).stdout
    bad = tmp_path / "src/pkg/bad.py"
    rewrite_later(bad, BAD.replace("class Bad(Mid)", "class Bad"))
    edited = _recomputed(tmp_path, "--jobs", "1")
    assert ("LL001", "src/pkg/bad.py") not in _codes(edited)
    rewrite_later(bad, BAD)
    assert _replayed(tmp_path, "--jobs", "1") == first
    rewrite_later(bad, BAD.replace("class Bad(Mid)", "class Bad"))
    assert _replayed(tmp_path, "--jobs", "1") == edited


def test_a_project_keeps_its_latest_results_only(tmp_path: Path) -> None:
    make_project(tmp_path)
    bad = tmp_path / "src/pkg/bad.py"
    run("check", cwd=tmp_path)
    [first] = _results(tmp_path)
    # The one entry a project had before results were kept by key goes at the next store.
    before = first.parent.with_suffix(".json")
    before.write_text("{}")
    for number in range(KEPT_RESULTS):
        rewrite_later(bad, f"{BAD}\n# edit {number}\n")
        assert run("check", cwd=tmp_path).returncode == 1
    assert len(_results(tmp_path)) == KEPT_RESULTS and first not in _results(tmp_path)
    assert not before.exists()
    # The oldest kept is the first edit: it replays, the state before it recomputes.
    rewrite_later(bad, f"{BAD}\n# edit 0\n")
    assert _codes(_replayed(tmp_path, "--jobs", "1")) == [("LL000", "src/pkg/broken.py"),
                                                          ("LL001", "src/pkg/bad.py")]
    rewrite_later(bad, BAD)
    _recomputed(tmp_path, "--jobs", "1")


def test_added_and_removed_files_recompute(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    (tmp_path / "src/pkg/worse.py").write_text(BAD.replace("class Bad", "class Worse"))
    assert ("LL001", "src/pkg/worse.py") in _codes(_recomputed(tmp_path))
    (tmp_path / "src/pkg/worse.py").unlink()
    (tmp_path / "src/pkg/broken.py").unlink()
    assert _codes(_recomputed(tmp_path)) == [("LL001", "src/pkg/bad.py")]


def test_configuration_and_selection_changes_recompute(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    assert _codes(_recomputed(tmp_path, "--select", "LL000")) == [
        ("LL000", "src/pkg/broken.py")]
    assert len(_codes(_replayed(tmp_path, "--select", "LL000"))) == 1
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"pkg.base.Params"', '"pkg.base.Other"'))
    # Params is no authority now: kept.py's waiver has nothing left to waive.
    assert _codes(_recomputed(tmp_path)) == [("LL000", "src/pkg/broken.py"),
                                             ("LL901", "src/pkg/kept.py")]


def test_editing_a_local_rule_recomputes(tmp_path: Path) -> None:
    make_project(tmp_path)
    rule = add_local_rule(tmp_path)
    first = json.loads(run("check", "--output-format", "json", cwd=tmp_path).stdout)
    assert [d["message"] for d in first["diagnostics"] if d["code"] == "HR001"] == [
        "first wording"]
    rewrite_later(rule, PLUGIN.replace("first wording", "second wording"))
    shutil.rmtree(tmp_path / "tools/__pycache__", ignore_errors=True)
    again = json.loads(run("check", "--output-format", "json", cwd=tmp_path).stdout)
    assert [d["message"] for d in again["diagnostics"] if d["code"] == "HR001"] == [
        "second wording"]


def test_a_touched_local_rule_replays_and_an_edited_one_recomputes(tmp_path: Path) -> None:
    # The rules' code is keyed by its content: a checkout or a reinstall gives files new
    # modification times and changes nothing else.
    make_project(tmp_path)
    rule = add_local_rule(tmp_path)
    first = run("check", "--output-format", "json", cwd=tmp_path).stdout
    rewrite_later(rule, rule.read_text())
    assert _replayed(tmp_path) == first
    rewrite_later(rule, PLUGIN.replace("first wording", "second wording"))
    shutil.rmtree(tmp_path / "tools/__pycache__", ignore_errors=True)
    assert "second wording" in _recomputed(tmp_path)


def test_a_cache_restored_in_another_checkout_replays(tmp_path: Path) -> None:
    # CI restores the cache into a fresh checkout, often at another path: where the
    # project lies is no part of the key.
    first = tmp_path / "first"
    first.mkdir()
    make_project(first)
    add_local_rule(first)
    cold = run("check", "--output-format", "json", cwd=first).stdout
    shutil.rmtree(first / "tools/__pycache__", ignore_errors=True)
    moved = tmp_path / "elsewhere/checkout"
    shutil.copytree(first, moved)
    assert _replayed(moved) == cold
    (moved / "src/pkg/bad.py").write_text(BAD + "\n# edited\n", "utf-8")
    assert _codes(_recomputed(moved)) == _codes(cold)


@pytest.mark.parametrize("damage", ["truncated", "not json", "wrong shape", "other key"])
def test_a_damaged_entry_is_recomputed_never_trusted(tmp_path: Path, damage: str) -> None:
    make_project(tmp_path)
    cold = run("check", "--output-format", "json", cwd=tmp_path)
    [entry] = _results(tmp_path)
    text = entry.read_text()
    entry.write_text({
        "truncated": text[: len(text) // 2],
        "not json": "\0\1garbage",
        "wrong shape": json.dumps({"key": json.loads(text)["key"], "diagnostics": [{"x": 1}],
                                   "suppressed": []}),
        "other key": text.replace(json.loads(text)["key"], "0" * 40),
    }[damage])
    assert _recomputed(tmp_path) == cold.stdout
    assert _replayed(tmp_path) == cold.stdout  # and rewritten whole


def test_the_baseline_applies_to_a_replayed_result(tmp_path: Path) -> None:
    make_project(tmp_path)
    recorded = run("check", "--write-baseline", "baseline.json", cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    # A file that cannot be checked is never held back by a baseline.
    assert _codes(_replayed(tmp_path, "--baseline", "baseline.json")) == [
        ("LL000", "src/pkg/broken.py")]
    # The baseline is not part of the key: emptied, the same replay reports everything.
    baseline = tmp_path / "baseline.json"
    data = json.loads(baseline.read_text())
    baseline.write_text(json.dumps({**data, "entries": []}))
    assert _codes(_replayed(tmp_path, "--baseline", "baseline.json")) == [
        ("LL000", "src/pkg/broken.py"), ("LL001", "src/pkg/bad.py")]


def test_an_editor_buffer_is_never_replayed_nor_stored(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    [entry] = _results(tmp_path)
    stored = entry.read_bytes()
    buffer = BAD.replace("class Bad(Mid)", "class Bad").encode()
    done = run("check", "--output-format", "json", "--stdin-filename", "src/pkg/bad.py", "-",
               cwd=tmp_path, stdin=buffer)
    assert done.returncode == 0 and json.loads(done.stdout)["diagnostics"] == []
    assert _results(tmp_path) == [entry] and entry.read_bytes() == stored
    assert _codes(_replayed(tmp_path)) == [("LL000", "src/pkg/broken.py"),
                                           ("LL001", "src/pkg/bad.py")]


def test_a_buffer_that_is_the_file_as_saved_is_replayed_and_stored(tmp_path: Path) -> None:
    make_project(tmp_path)
    run("check", cwd=tmp_path)
    path = tmp_path / "src/pkg/bad.py"
    editor = ("check", "--output-format", "json", "--stdin-filename", "src/pkg/bad.py", "-")

    def lint_buffer(buffer: bytes) -> tuple[str, bool]:
        """Lint ``buffer`` with the facts entries gone: (stdout, whether it parsed)."""
        _forget_facts(tmp_path)
        done = run(*editor, cwd=tmp_path, stdin=buffer, env=IMPORTTIME)
        return done.stdout, "libcst" in done.stderr

    # Just opened: the project's last result answers for the file, as for `check PATH`.
    opened, parsed = lint_buffer(path.read_bytes())
    assert not parsed and _facts_entries(tmp_path) == []
    direct = run("check", "--output-format", "json", "src/pkg/bad.py", cwd=tmp_path)
    assert opened == direct.stdout
    assert _codes(opened) == [("LL001", "src/pkg/bad.py")]
    # Just saved after an edit: computed once and kept, then replayed while nothing changes.
    path.write_text(BAD.replace("class Bad(Mid)", "class Bad"), "utf-8")
    saved = path.read_bytes()
    first, parsed = lint_buffer(saved)
    assert parsed and _codes(first) == []
    again, parsed = lint_buffer(saved)
    assert not parsed and again == first
    # The same text unsaved over other text on disk is a buffer again: never replayed.
    path.write_text(BAD, "utf-8")
    unsaved, parsed = lint_buffer(saved)
    assert parsed and unsaved == first


def test_fixes_survive_a_replay(tmp_path: Path) -> None:
    make_project(tmp_path)
    cold = run("check", "--diff", cwd=tmp_path)
    assert cold.returncode == 1 and "eq=False" in cold.stdout  # LL001 offers its fix
    _forget_facts(tmp_path)
    replayed = run("check", "--diff", cwd=tmp_path)
    # --diff re-parses the fixed text (so LibCST is imported), but phase 1 parsed nothing.
    assert _facts_entries(tmp_path) == []
    assert replayed.stdout == cold.stdout
    fixed = run("check", "--fix", cwd=tmp_path)
    assert "eq=False" in (tmp_path / "src/pkg/bad.py").read_text()
    assert "LL001" not in fixed.stdout
