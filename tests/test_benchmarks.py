"""The benchmark scripts run from a checkout: one small corpus end to end, and usage errors.

The figures themselves are not asserted (performance is measured by the benchmark, not by
timed tests); what is asserted is that every measurement the README quotes is produced.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lintkit.core.index import ProjectIndex, module_name_for
from lintkit.parsing.extract import extract

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _run(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_bench_measures_a_corpus_end_to_end(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "pkg").mkdir(parents=True)
    (corpus / "pkg" / "__init__.py").write_text("")
    (corpus / "pkg" / "base.py").write_text("class Params:\n    pass\n" * 40)
    (corpus / "pkg" / "use.py").write_text("from pkg.base import Params\n\n\n"
                                           "class P(Params):\n    x: int = 1\n" * 30)
    figures = tmp_path / "figures.json"

    result = _run("bench.py", "--no-stdlib", "--runs", "1", "--jobs", "1",
                  "--json", str(figures), str(corpus), cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    for line in ("parse floor", "cold", "warm", "changed", "revisit", "recheck", "editor",
                 "hook", "turns", "--version", "cold peak RSS", "ratios: cold / floor",
                 "changed - recheck"):
        assert line in result.stdout
    (measured,) = json.loads(figures.read_text())["results"]
    assert measured["files"] == 3
    assert [len(measured[row]) for row in ("changed", "revisit", "recheck", "editor", "hook",
                                           "turns")] == [1, 1, 1, 1, 1, 1]
    if Path("/proc/self/smaps_rollup").exists():  # Linux: memory is sampled
        # The proportional size counts a page shared between processes once.
        assert 0 < measured["cold_tree_pss"] <= measured["cold_tree_rss"]
    # The corpus was copied, never touched: the changed runs edit the copy.
    assert (corpus / "pkg" / "use.py").read_text().count("class P(Params)") == 30


@pytest.mark.parametrize("script", ["bench.py", "limits.py", "sweep.py"])
def test_a_missing_corpus_is_a_usage_error_before_any_run(tmp_path: Path, script: str) -> None:
    result = _run(script, str(tmp_path / "absent"), cwd=tmp_path)
    assert result.returncode == 2
    assert "absent: not a directory" in result.stderr


@pytest.mark.parametrize("script", ["bench.py", "limits.py"])
def test_a_corpus_without_python_files_is_a_usage_error(tmp_path: Path, script: str) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# nothing to lint\n")
    result = _run(script, str(tmp_path / "docs"), cwd=tmp_path)
    assert result.returncode == 2
    assert "docs: no Python files to lint" in result.stderr


def test_limits_takes_a_corpus_apart_end_to_end(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "pkg").mkdir(parents=True)
    for i in range(4):
        (corpus / "pkg" / f"m{i}.py").write_text(
            "".join(f"def f{j}(x):\n    return x + {j}\n" for j in range(50 * (i + 1))))

    result = _run("limits.py", "--runs", "1", str(corpus), cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    for line in ("import libcst", "import the rules", "parse (the floor)", "positions",
                 "phase 1", "ast.parse", "the slowest of", "memory parsing pkg/m3.py",
                 "cold: phase 1 costs", "spread as this machine's cores spread LibCST's parse",
                 "changed:", "resident             decode", "a process kept between runs",
                 "a run that reports on one file",
                 "memory: while one worker"):
        assert line in result.stdout


def test_limits_deals_equal_shares_of_the_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from limits import shares

    paths = ["a.py", "b.py", "c.py", "d.py", "e.py"]
    # Largest first, each to the lighter share: 50 + 20 + 10 beside 40 + 30.
    assert shares(paths, [50, 40, 30, 20, 10], 2) == [["a.py", "d.py", "e.py"],
                                                      ["b.py", "c.py"]]
    assert shares(paths, [10, 10, 10, 10, 10], 2) == [["a.py", "c.py", "e.py"],
                                                      ["b.py", "d.py"]]
    # More cores than files: no empty share (a process with nothing to parse measures 0).
    assert shares(["a.py"], [7], 4) == [["a.py"]]


def test_limits_import_reach_counts_each_modules_project_closure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from limits import import_reach

    sources = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg import b\nimport json\n",  # json: not the project's
        "pkg/b.py": "def f():\n    from . import c\n",  # imported when f is called
        "pkg/c.py": "",
        "solo.py": "",
    }
    facts = [extract(path, source.encode(), path.endswith("__init__.py"))
             for path, source in sources.items()]
    index = ProjectIndex(facts, {f.path: module_name_for(f.path, ("",))[0] for f in facts})
    # pkg and solo reach themselves; pkg.c adds its package, pkg.b adds pkg.c, pkg.a pkg.b.
    assert import_reach(index) == [1 / 5, 1 / 5, 2 / 5, 3 / 5, 4 / 5]


def _figures(corpus: str, files: int, warm: float) -> dict[str, object]:
    return {"corpus": corpus, "files": files, "parse_floor": [10.0], "cold": [7.0],
            "warm": [warm], "changed": [1.0], "changed_file_parse": [0.01],
            "version": [0.04], "cold_tree_rss": 200 * 2**20, "cold_largest_rss": 150 * 2**20}


def test_bench_judges_the_600_file_warm_target_on_any_corpus_that_large(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from bench import targets

    targets([_figures("stdlib", 1788, 0.16), _figures("big", 650, 0.5),
             _figures("lionagi", 205, 0.07)])

    judged = [line.split() for line in capsys.readouterr().out.splitlines()
              if "about 600 files" in line]
    assert [(words[0], words[1], words[-2]) for words in judged] == [
        ("stdlib", "met", "(1788"), ("big", "MISSED", "(650")]


def test_a_package_corpus_keeps_its_import_name(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from bench import build_corpus

    package = tmp_path / "checkout" / "lionish"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "mod.py").write_text("from lionish.sub import other\n")
    (package / "sub" / "other.py").write_text("")

    paths = build_corpus(package, tmp_path / "copy")

    # Under its own name, so that `lionish.sub.other` names a module of the copy.
    assert paths == ["lionish/__init__.py", "lionish/sub/__init__.py", "lionish/sub/mod.py",
                     "lionish/sub/other.py"]
    assert (tmp_path / "copy" / "lionish" / "sub" / "mod.py").read_text() == \
        "from lionish.sub import other\n"
    # A directory of top-level modules (the standard library) is copied as it is.
    assert build_corpus(tmp_path / "checkout", tmp_path / "flat")[0] == "lionish/__init__.py"


def _commit(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).write_text(text)
    git = ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "add", "."], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-q", "-m", "edit"], check=True, capture_output=True)


MODULE = ("import os\n\n\nclass Config:  # settings\n    name = os.getcwd()\n\n\n"
          "def run():\n    return Config()\n")


def test_edits_sorts_a_history_by_what_each_edit_did_to_the_facts(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit(repo, {"mod.py": MODULE, "other.py": "X = 1\n", "notes.txt": "a\n"})
    # A comment reworded on its line: not even a position moves.
    _commit(repo, {"mod.py": MODULE.replace("# settings", "# the settings")})
    # A line added above everything: every position moves, nothing else.
    _commit(repo, {"mod.py": "# header\n" + MODULE.replace("# settings", "# the settings")})
    # A call added: the facts themselves change.
    _commit(repo, {"mod.py": "# header\n" + MODULE.replace("return Config()",
                                                           "return Config(os.sep)")})
    # Two modules in one commit: with --bulk 2, counted apart; a text file is no module.
    _commit(repo, {"mod.py": MODULE, "other.py": "X = 2\n", "notes.txt": "b\n"})

    result = _run("edits.py", str(repo), "--bulk", "2", cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert "the last 4 commits" in result.stdout  # the first adds files, modifies none
    assert ("commits of fewer than 2 modules: 3 module edits: same facts 1 (33%), same shape "
            "1 (33%), changed 1 (33%)") in result.stdout
    assert "commits of 2 modules or more:  2 module edits: same facts 0 (0%)" in result.stdout


def test_edits_needs_a_git_checkout(tmp_path: Path) -> None:
    result = _run("edits.py", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2
    assert f"{tmp_path}: not a git checkout" in result.stderr
