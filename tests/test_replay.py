"""The replay note: a run that finds nothing changed replays the last result before it
imports pydantic or any rule, and falls back to the full run on any change.

Each test runs the real command on a real project in a temporary directory. With
``PYTHONPROFILEIMPORTTIME`` every import is listed on stderr, so a replay is told apart from
a full run by what it never imports: pydantic (the configuration model) and the rules.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import lintkit
from lintkit.cli.compose import compose
from lintkit.engine.projects import RunOptions
from lintkit.engine import replay as replay_module
from lintkit.engine.replay import replay
from lintkit.engine.run import lint_paths
from tests.phase1_support import BAD, PLUGIN, add_local_rule, make_project, rewrite_later, run

IMPORTTIME = {"PYTHONPROFILEIMPORTTIME": "1"}


def _notes(root: Path) -> list[Path]:
    return sorted((root / ".lion-lint-cache").glob("replay/*.json"))


def _check(root: Path, *args: str, env: dict[str, str] | None = None) -> tuple[bool, int, str, str]:
    """(replayed?, exit code, stdout, stderr without the import listing)."""
    done = run("check", *args, cwd=root, env={**IMPORTTIME, **(env or {})})
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")]
    said = "\n".join(line for line in done.stderr.splitlines() if not line.startswith("import time:"))
    replayed = not any(name.startswith(("pydantic", "lion_lint.rules", "libcst"))
                       for name in imported)
    return replayed, done.returncode, done.stdout, said


def _codes(stdout: str) -> list[tuple[str, str]]:
    return sorted((d["code"], d["path"]) for d in json.loads(stdout)["diagnostics"])


@pytest.mark.parametrize("args", [
    ("--output-format", "json"),
    ("--output-format", "concise", "--show-suppressed"),
    ("--output-format", "full", "--statistics", "--color", "never"),
    ("--output-format", "github"),
    ("--output-format", "concise", "src/pkg/bad.py"),
])
def test_an_unchanged_project_replays_without_pydantic_or_rules(
        tmp_path: Path, args: tuple[str, ...]) -> None:
    make_project(tmp_path)
    full = _check(tmp_path, *args)
    assert not full[0]
    assert _notes(tmp_path), "the full run wrote no replay note"
    again = _check(tmp_path, *args)
    assert again == (True, *full[1:])


def test_sarif_describes_the_rules_so_it_runs_in_full(tmp_path: Path) -> None:
    make_project(tmp_path)
    first = _check(tmp_path, "--output-format", "sarif")
    again = _check(tmp_path, "--output-format", "sarif")
    assert not again[0]
    assert again[1:] == first[1:]
    assert "LL001" in again[2] and "structural-eq" in again[2]


def _edit_mid(root: Path) -> None:
    mid = root / "src/pkg/mid.py"
    mid.write_text(mid.read_text().replace("class Mid(Params)", "class Mid"))


def _add_file(root: Path) -> None:
    (root / "src/pkg/worse.py").write_text(BAD.replace("class Bad", "class Worse"))


def _edit_config(root: Path) -> None:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"pkg.base.Params"', '"pkg.base.Other"'))


BEFORE = [("LL000", "src/pkg/broken.py"), ("LL001", "src/pkg/bad.py")]


@pytest.mark.parametrize("change, args, env, expected", [
    # The violation's chain crosses modules: fixing the middle class clears bad.py.
    (_edit_mid, (), {}, [("LL000", "src/pkg/broken.py")]),
    (_add_file, (), {}, [*BEFORE, ("LL001", "src/pkg/worse.py")]),
    (lambda root: (root / "src/pkg/broken.py").unlink(), (), {}, [("LL001", "src/pkg/bad.py")]),
    # Params is no authority now: kept.py's waiver has nothing left to waive.
    (_edit_config, (), {}, [("LL000", "src/pkg/broken.py"), ("LL901", "src/pkg/kept.py")]),
    (None, ("--select", "LL000"), {}, [("LL000", "src/pkg/broken.py")]),
    (None, ("--ignore", "LL000"), {}, [("LL001", "src/pkg/bad.py")]),
    # Plugins are imported along sys.path: another path may find other code.
    (None, (), {"PYTHONPATH": "elsewhere"}, BEFORE),
], ids=["content", "added", "removed", "config", "select", "ignore", "sys.path"])
def test_any_change_to_an_input_runs_in_full(tmp_path: Path, change, args, env,
                                             expected) -> None:
    make_project(tmp_path)
    assert _codes(_check(tmp_path, "--output-format", "json")[2]) == BEFORE
    if change is not None:
        change(tmp_path)
    replayed, _, stdout, _ = _check(tmp_path, "--output-format", "json", *args, env=env)
    assert not replayed
    assert _codes(stdout) == expected
    # The full run left a note for exactly this invocation: the next one replays.
    replayed, _, again, _ = _check(tmp_path, "--output-format", "json", *args, env=env)
    assert replayed and again == stdout


SHELL = ("--output-format", "json")
HOOK = ("--output-format", "json", "--force-exclude", "src/pkg/bad.py")


def test_invocations_taking_turns_each_replay_their_own_last_result(tmp_path: Path) -> None:
    # A shell's run, the pre-commit hook's and a CI job's --select on one checkout: each
    # keeps its note, so none's replay is lost to the others run in between.
    make_project(tmp_path)
    invocations = [SHELL, HOOK, (*SHELL, "--select", "LL000")]
    first = [_check(tmp_path, *args) for args in invocations]
    assert not any(replayed for replayed, *_ in first)
    for _ in range(2):
        assert [_check(tmp_path, *args) for args in invocations] == [
            (True, *full[1:]) for full in first]
    assert len(_notes(tmp_path)) == len(invocations)


def test_an_edit_is_noticed_by_each_invocation_from_its_own_note(tmp_path: Path) -> None:
    make_project(tmp_path)
    for args in (SHELL, HOOK):
        _check(tmp_path, *args)
    _edit_mid(tmp_path)
    # The hook's run parses the edit; the shell's, from its older note, finds it parsed
    # but no result of it stored: it runs in full, and reports the edit.
    assert _check(tmp_path, *HOOK)[0] is False
    replayed, _, stdout, _ = _check(tmp_path, *SHELL)
    assert not replayed and _codes(stdout) == [("LL000", "src/pkg/broken.py")]
    assert _check(tmp_path, *SHELL) == (True, 1, stdout, "")


def test_a_project_keeps_the_notes_of_its_latest_invocations(tmp_path: Path) -> None:
    make_project(tmp_path)
    selections = [("--select", code) for code in ("LL000", "LL001", "LL002", "LL003", "LL004")]
    assert len(selections) == replay_module.KEPT_NOTES + 1
    for args in selections:
        _check(tmp_path, *args)
    assert len(_notes(tmp_path)) == replay_module.KEPT_NOTES
    # The oldest invocation's note went; the latest's replay.
    assert not _check(tmp_path, *selections[0])[0]
    assert _check(tmp_path, *selections[-1])[0]


def test_editing_a_rule_that_is_not_a_project_file_runs_in_full(tmp_path: Path) -> None:
    make_project(tmp_path)
    rule = add_local_rule(tmp_path, 'extend-exclude = ["tools"]')

    def messages() -> tuple[bool, list[str]]:
        replayed, _, stdout, said = _check(tmp_path, "--output-format", "json")
        assert stdout, said
        return replayed, [d["message"] for d in json.loads(stdout)["diagnostics"]
                          if d["code"] == "HR001"]

    assert messages() == (False, ["first wording"])
    assert messages() == (True, ["first wording"])
    # Only the rule's own size and modification time tell: it is not among the files.
    rewrite_later(rule, PLUGIN.replace("first wording", "second wording"))
    assert messages() == (False, ["second wording"])
    assert messages() == (True, ["second wording"])


def test_a_touched_file_is_read_again_and_replays(tmp_path: Path) -> None:
    # Its content is the one the facts cache and the stored result know: the key says so.
    make_project(tmp_path)
    first = _check(tmp_path, "--output-format", "json")
    bad = tmp_path / "src/pkg/bad.py"
    rewrite_later(bad, bad.read_text())
    assert _check(tmp_path, "--output-format", "json") == (True, *first[1:])
    assert _check(tmp_path, "--output-format", "json") == (True, *first[1:])
    # With no stored result for it, the same touch runs in full, then replays again.
    for stored in (tmp_path / ".lion-lint-cache").glob("results-*"):
        shutil.rmtree(stored)
    rewrite_later(bad, bad.read_text())
    assert _check(tmp_path, "--output-format", "json") == (False, *first[1:])
    assert _check(tmp_path, "--output-format", "json") == (True, *first[1:])


def test_an_edit_undone_replays_without_pydantic_or_rules(tmp_path: Path) -> None:
    # The note is of the edit's run, but the facts cache keeps the content before it and
    # the results cache its result: the files' content makes the key that finds it.
    make_project(tmp_path)
    first = _check(tmp_path, "--output-format", "json")
    bad = tmp_path / "src/pkg/bad.py"
    original = bad.read_text()
    rewrite_later(bad, original.replace("class Bad(Mid)", "class Bad"))
    edited = _check(tmp_path, "--output-format", "json")
    assert not edited[0] and ("LL001", "src/pkg/bad.py") not in _codes(edited[2])
    rewrite_later(bad, original)
    assert _check(tmp_path, "--output-format", "json") == (True, *first[1:])
    rewrite_later(bad, original.replace("class Bad(Mid)", "class Bad"))
    assert _check(tmp_path, "--output-format", "json") == (True, *edited[1:])
    # Content never linted with the rest as it is runs in full, though every file's facts
    # are cached (broken.py is gone, bad.py's edit was linted).
    (tmp_path / "src/pkg/broken.py").unlink()
    assert not _check(tmp_path, "--output-format", "json")[0]


def test_each_of_two_different_edits_undone_replays(tmp_path: Path) -> None:
    # Trying one change, undoing it, trying another: the original stays one content back.
    make_project(tmp_path)
    first = _check(tmp_path, "--output-format", "json")
    bad = tmp_path / "src/pkg/bad.py"
    original = bad.read_text()
    for edit in ("class Bad", "class Worse(Mid)"):
        rewrite_later(bad, original.replace("class Bad(Mid)", edit))
        assert not _check(tmp_path, "--output-format", "json")[0]
        rewrite_later(bad, original)
        assert _check(tmp_path, "--output-format", "json") == (True, *first[1:])


@pytest.mark.parametrize("damage", ["truncated", "not json", "wrong shape", "other version"])
def test_a_damaged_note_runs_in_full_and_is_rewritten(tmp_path: Path, damage: str) -> None:
    make_project(tmp_path)
    first = _check(tmp_path, "--output-format", "json")
    [note] = _notes(tmp_path)
    text = note.read_text()
    note.write_text({
        "truncated": text[: len(text) // 2],
        "not json": "\0\1garbage",
        "wrong shape": json.dumps({**json.loads(text), "rules": {"code": [[1]]}}),
        "other version": json.dumps({**json.loads(text), "version": 0}),
    }[damage])
    assert _check(tmp_path, "--output-format", "json") == (False, *first[1:])
    assert _check(tmp_path, "--output-format", "json") == (True, *first[1:])


def test_the_baseline_is_applied_afresh_to_a_replay(tmp_path: Path) -> None:
    make_project(tmp_path)
    recorded = run("check", "--write-baseline", "baseline.json", cwd=tmp_path)
    assert recorded.returncode == 0, recorded.stderr
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "[tool.lion-lint]\n", '[tool.lion-lint]\nbaseline = "baseline.json"\n'))
    full = _check(tmp_path, "--output-format", "json")
    assert _codes(full[2]) == [("LL000", "src/pkg/broken.py")]  # never held back
    replayed = _check(tmp_path, "--output-format", "json")
    assert replayed == (True, *full[1:])
    # Emptied, the baseline holds nothing back: the replay reports everything.
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({**json.loads(baseline.read_text()), "entries": []}))
    emptied = _check(tmp_path, "--output-format", "json")
    assert emptied[0] and _codes(emptied[2]) == BEFORE
    # Gone, it is the same configuration error as in a full run.
    baseline.unlink()
    gone = _check(tmp_path, "--output-format", "json")
    uncached = _check(tmp_path, "--output-format", "json", "--no-cache")
    assert gone[0] and not uncached[0]
    assert gone[1:] == uncached[1:]
    assert gone[1] == 2 and "baseline" in gone[3] and "file not found" in gone[3]


def test_a_nested_project_is_run_in_full(tmp_path: Path) -> None:
    make_project(tmp_path)
    inner = tmp_path / "inner"
    make_project(inner)
    first = _check(tmp_path, "--output-format", "json")
    assert ("LL001", "inner/src/pkg/bad.py") in _codes(first[2])
    assert _check(tmp_path, "--output-format", "json") == (False, *first[1:])


def test_two_projects_in_one_run_replay_together(tmp_path: Path) -> None:
    make_project(tmp_path / "one")
    make_project(tmp_path / "two")
    first = _check(tmp_path, "--output-format", "json", "one", "two")
    assert len(_codes(first[2])) == 4
    assert _check(tmp_path, "--output-format", "json", "one", "two") == (True, *first[1:])
    _edit_mid(tmp_path / "two")
    changed = _check(tmp_path, "--output-format", "json", "one", "two")
    assert not changed[0] and len(_codes(changed[2])) == 3


def test_without_the_cache_nothing_is_noted_or_replayed(tmp_path: Path) -> None:
    make_project(tmp_path)
    first = _check(tmp_path, "--output-format", "json", "--no-cache")
    again = _check(tmp_path, "--output-format", "json", "--no-cache")
    assert not again[0] and again[1:] == first[1:]
    assert not (tmp_path / ".lion-lint-cache").exists()


def test_the_library_replays_the_same_results_until_lion_lint_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_project(tmp_path)
    options = RunOptions(use_cache=True)

    def summary(results: list) -> list:
        return [(r.root, r.diagnostics, r.suppressed, r.files_checked) for r in results]

    full = lint_paths([tmp_path], None, compose, options)
    replayed = replay([tmp_path], None, options).results
    assert replayed is not None and summary(replayed) == summary(full)
    assert replay([tmp_path], None, RunOptions(use_cache=False)).results is None
    monkeypatch.setattr(lintkit, "__version__", "999.0.0")
    assert replay([tmp_path], None, options).results is None
