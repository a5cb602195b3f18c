"""A run that reports on part of a project reports there exactly what a whole run does.

The rules skip the work whose diagnostics would all fall outside the targets
(``Project.reports``), so `lion-lint src/pkg/a.py` and an editor's buffer cost less on a
large project. What they report must not change: every file of every cross-module example
of the shipped rules is linted alone and compared with the whole run. The results cache
keeps each entry with the targets it covers, and answers only runs within them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lintkit.cli.compose import shipped_rules
from lintkit.config.load import LoadedConfig
from lintkit.config.model import Settings
from lintkit.core.builtin import ENGINE_RULES
from lintkit.core.project import within
from lintkit.core.rule import Invalid, Rule
from lintkit.engine.run import RunOptions, instantiate, lint_loaded
from lintkit.testing import iter_examples, write_project


def _lint(root: Path, rule: type[Rule], table: dict[str, Any], targets: list[Path],
          use_cache: bool = False) -> list[str]:
    engine_keys = {info.alias or name for name, info in Settings.model_fields.items()}
    settings = Settings.model_validate(
        {"respect-gitignore": False, **{k: v for k, v in table.items() if k in engine_keys}})
    loaded = LoadedConfig(root=root, path=None, settings=settings, tool_table=table)
    available = [*ENGINE_RULES, rule]
    result = lint_loaded(loaded, available, instantiate(available, loaded), targets,
                         RunOptions(use_cache=use_cache, cache_dir=root / ".cache"))
    # Everything a diagnostic carries (related places, fix, detail), location first.
    return [f"{d.path}:{d.location.line}:{d.location.column} "
            f"{json.dumps(d.to_data(), sort_keys=True)}" for d in result.diagnostics]


def _cross_module_examples() -> list[Any]:
    cases = []
    for rule in shipped_rules():
        for label, example in iter_examples(rule):
            if isinstance(example, Invalid) and not isinstance(example.files, str) \
                    and len(example.files) > 1:
                cases.append(pytest.param(rule, example, id=label))
    return cases


@pytest.mark.parametrize(("rule", "example"), _cross_module_examples())
def test_each_file_alone_reports_what_the_whole_run_reports_there(
        tmp_path: Path, rule: type[Rule], example: Invalid) -> None:
    write_project(tmp_path, example.files)
    table = {**example.config, **({rule.name: dict(example.options)} if example.options else {})}
    whole = _lint(tmp_path, rule, table, [tmp_path])
    assert whole  # an invalid example: the comparison below is not between two empty runs
    for path in example.files:
        alone = _lint(tmp_path, rule, table, [tmp_path / path])
        assert alone == [line for line in whole if line.startswith(f"{path}:")], path


def test_the_cross_module_examples_are_there_to_compare() -> None:
    rules = {param.values[0] for param in _cross_module_examples()}
    assert {r.code for r in rules} >= {"LL001", "LL002", "LL003", "LL004"}


def test_within_a_target_is_the_target_itself_or_below_it() -> None:
    assert within("pkg/a.py", [""])
    assert within("pkg/a.py", ["pkg/a.py"])
    assert within("pkg/a.py", ["lib", "pkg"])
    assert not within("pkg/ab.py", ["pkg/a"])
    assert not within("pkgs/a.py", ["pkg"])
    assert not within("pkg/a.py", [])


def test_with_no_inventory_constant_the_first_site_is_found_from_any_file(
        tmp_path: Path) -> None:
    # Sentinel-inventory reports a missing constant once, at the project's first site: a run
    # on a later file must still find that an earlier one holds it, and stay silent.
    from lion_lint.rules.sentinel_inventory import SentinelInventory

    config = ("class ModelConfig:\n"
              "    def __init__(self, none_as_sentinel=False, empty_as_sentinel=False):\n"
              "        pass\n")
    legacy = ("from pkg.config import ModelConfig\n\n\nclass {name}:\n"
              "    _config = ModelConfig(none_as_sentinel=True)\n")
    write_project(tmp_path, {"pkg/__init__.py": "", "pkg/config.py": config,
                             "pkg/a.py": legacy.format(name="A"),
                             "pkg/b.py": legacy.format(name="B"),
                             "pkg/c.py": "VALUE = 1\n"})
    table = {"sentinel-inventory": {"constant": "pkg.config.ALLOW",
                                    "config-classes": ["pkg.config.ModelConfig"]}}
    whole = _lint(tmp_path, SentinelInventory, table, [tmp_path])
    assert [line.split(" ")[0] for line in whole] == ["pkg/a.py:5:44"]
    assert "cannot be found" in whole[0]
    for path in ("pkg/__init__.py", "pkg/a.py", "pkg/b.py", "pkg/c.py"):
        alone = _lint(tmp_path, SentinelInventory, table, [tmp_path / path])
        assert alone == [line for line in whole if line.startswith(f"{path}:")], path


# --- the results cache and the targets --------------------------------------------------------

BASE = "class Params:\n    pass\n"
CHILD = ("from dataclasses import dataclass\nfrom pkg.base import Params\n\n\n"
         "@dataclass\nclass Child(Params):\n    x: int = 0\n")
TABLE = {"structural-eq": {"authorities": ["pkg.base.Params"]}}


def _project(tmp_path: Path) -> None:
    write_project(tmp_path, {"pkg/__init__.py": "", "pkg/base.py": BASE,
                             "pkg/child.py": CHILD, "other/child.py": CHILD})


def _structural(tmp_path: Path, *targets: str) -> list[str]:
    from lion_lint.rules.structural_eq import StructuralEq

    found = _lint(tmp_path, StructuralEq, TABLE, [tmp_path / t for t in targets],
                  use_cache=True)
    return [line.split(" ")[0] + (" (replayed)" if "MARKED" in line else "") for line in found]


def _mark_stored_result(tmp_path: Path) -> None:
    """Change the stored result's messages, so that a run that replays it shows it."""
    [entry] = (tmp_path / ".cache").glob("results-*/*/*.json")
    text = entry.read_text(encoding="utf-8")
    assert "Child descends" in text
    entry.write_text(text.replace("Child descends", "MARKED Child descends"), encoding="utf-8")


def test_a_narrow_runs_stored_result_never_answers_a_wider_run(tmp_path: Path) -> None:
    _project(tmp_path)
    assert _structural(tmp_path, "pkg") == ["pkg/child.py:6:7"]
    _mark_stored_result(tmp_path)
    assert _structural(tmp_path, "pkg/child.py") == ["pkg/child.py:6:7 (replayed)"]
    assert _structural(tmp_path, "") == ["other/child.py:6:7", "pkg/child.py:6:7"]


def test_the_whole_projects_stored_result_answers_any_targets(tmp_path: Path) -> None:
    _project(tmp_path)
    assert _structural(tmp_path, "") == ["other/child.py:6:7", "pkg/child.py:6:7"]
    _mark_stored_result(tmp_path)
    assert _structural(tmp_path, "other") == ["other/child.py:6:7 (replayed)"]
    assert _structural(tmp_path, "pkg", "other") == ["other/child.py:6:7 (replayed)",
                                                     "pkg/child.py:6:7 (replayed)"]
