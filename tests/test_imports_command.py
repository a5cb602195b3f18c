"""``lion-lint imports MODULE``: the static closure, the runtime cross-check, and the pytest
helper built on the same probe."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lintkit.cli.main import cli
from lintkit.runtime import assert_import_does_not_load, import_in_subprocess

PROJECT = {
    "pyproject.toml": "[tool.lion-lint]\n",
    "pkg/__init__.py": "import json\nfrom . import sub\n",
    "pkg/sub.py": "import decimal\ntry:\n    import not_installed_zz\nexcept ImportError:\n"
                  "    not_installed_zz = None\n",
    "pkg/core/__init__.py": "",
    "pkg/core/types.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                         "    import heavy_zz\n\ndef later():\n    import csv\n",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for relative, source in PROJECT.items():
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
    return tmp_path


def imports(project: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["imports", *args, "--project", str(project)])
    return result.exit_code, result.output


def test_tree_lists_first_arrivals_with_kind_and_place(project: Path) -> None:
    status, out = imports(project, "pkg.core.types")
    assert status == 0
    assert out == (
        "pkg.core.types\n"
        "├── pkg                                     parent package\n"
        "│   ├── json (stdlib)                       pkg/__init__.py:1\n"
        "│   └── pkg.sub                             pkg/__init__.py:2\n"
        "│       ├── decimal (stdlib)                pkg/sub.py:1\n"
        "│       └── not_installed_zz (third-party)  pkg/sub.py:3\n"
        "├── pkg.core                                parent package\n"
        "└── typing (stdlib)                         pkg/core/types.py:1\n"
        "\n"
        "importing pkg.core.types loads 7 modules at import time: "
        "3 project, 1 third-party, 3 stdlib\n")


def test_a_file_argument_finds_its_own_project(project: Path) -> None:
    # Run from wherever the tests run (another project), naming the file: its project.
    result = CliRunner().invoke(cli, ["imports", str(project / "pkg" / "sub.py"),
                                      "--output-format", "flat"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (
        "importing pkg.sub loads 4 modules at import time: 1 project, 1 third-party, 2 stdlib")


def test_flat_list_is_sorted_and_can_hide_the_stdlib(project: Path) -> None:
    status, out = imports(project, "pkg", "--output-format", "flat", "--hide-stdlib")
    assert status == 0
    assert out.splitlines()[:2] == [
        "not_installed_zz  third-party  import  pkg/sub.py:3       from pkg.sub",
        "pkg.sub           project      import  pkg/__init__.py:2  from pkg",
    ]


def test_call_time_imports_only_on_request(project: Path) -> None:
    assert "csv" not in imports(project, "pkg.core.types")[1]
    _, out = imports(project, "pkg.core.types", "--include-call-time")
    assert "└── csv (stdlib)" in out and "call-time import, pkg/core/types.py:6" in out
    assert "heavy_zz" not in out  # TYPE_CHECKING-only imports never run


def test_json_output(project: Path) -> None:
    status, out = imports(project, "pkg.core.types", "--output-format", "json")
    data = json.loads(out)
    assert status == 0 and data["module"] == "pkg.core.types"
    by_module = {entry["module"]: entry for entry in data["closure"]}
    assert by_module["pkg"] == {"module": "pkg", "category": "project", "kind": "parent",
                                "importer": "pkg.core.types", "path": None, "line": None,
                                "via": ""}
    assert by_module["decimal"]["path"] == "pkg/sub.py" and by_module["decimal"]["line"] == 1
    assert "runtime" not in data


def test_a_file_path_names_its_module(project: Path) -> None:
    status, out = imports(project, str(project / "pkg" / "sub.py"))
    assert status == 0 and out.startswith("pkg.sub\n")


def test_unknown_module_is_a_usage_error(project: Path) -> None:
    status, out = imports(project, "pkg.sbu")
    assert status == 2 and "no module 'pkg.sbu'" in out and "did you mean pkg.sub" in out


def test_non_literal_dynamic_import_is_a_warning(project: Path) -> None:
    (project / "pkg" / "dyn.py").write_text("import importlib\nimportlib.import_module(NAME)\n")
    _, out = imports(project, "pkg.dyn")
    assert ("warning: pkg/dyn.py:2: importlib.import_module() with a non-literal module "
            "name: the static closure cannot see what it loads") in out


# --- --runtime ---------------------------------------------------------------------------------


def test_runtime_agrees_and_explains_each_difference(project: Path) -> None:
    status, out = imports(project, "pkg", "--runtime")
    assert status == 0, out
    assert "runtime: " in out and f"(Python {sys.version_info[0]}.{sys.version_info[1]}." in out
    assert "                static  runtime  both\n  project            2        2     2\n" in out
    assert ("  not_installed_zz (third-party, not installed): pkg/sub.py:3 from pkg.sub"
            in out)
    assert "  by decimal: " in out  # loaded by a module the graph treats as a leaf
    assert "loaded at run time by project code, not predicted (0):" in out
    assert out.rstrip().endswith(
        "the static closure accounts for every module the project's code imported")


def test_runtime_reports_what_the_static_graph_missed(project: Path) -> None:
    (project / "pkg" / "hidden.py").write_text("")
    (project / "pkg" / "dyn.py").write_text(
        'import importlib\nimportlib.import_module("pkg." + "hidden")\n')
    status, out = imports(project, "pkg.dyn", "--runtime")
    assert status == 1
    assert ("loaded at run time by project code, not predicted (1):\n"
            "  pkg.hidden: pkg.dyn -> pkg.hidden") in out


@pytest.mark.parametrize(("source", "importer", "loaded"), [
    # concurrent.futures imports its .thread module in its own __getattr__ when the name is
    # first asked for: the package's doing, which the graph does not follow into.
    ("from concurrent.futures import ThreadPoolExecutor\n", "concurrent.futures",
     "concurrent.futures.thread"),
    # importlib.metadata's body imports csv: its doing too (only the import system's own
    # frames are skipped when finding who imported a module).
    ("import importlib.metadata\n", "importlib.metadata", "csv"),
], ids=["lazy-getattr", "importlib-submodule"])
def test_runtime_credits_a_stdlib_packages_own_imports_to_it(
        project: Path, source: str, importer: str, loaded: str) -> None:
    (project / "pkg" / "uses.py").write_text(source)
    status, out = imports(project, "pkg.uses", "--runtime")
    assert status == 0, out
    assert loaded in out.split(f"by {importer}: ")[1].splitlines()[0].split(", ")
    assert "loaded at run time by project code, not predicted (0):" in out


def test_runtime_does_not_count_a_second_name_for_a_loaded_module(project: Path) -> None:
    # multiprocessing's __init__ names __main__ again as __mp_main__, and a module may name
    # itself under an alias: neither loads anything, so neither is a blind spot.
    (project / "pkg" / "procs.py").write_text(
        "import sys\nimport multiprocessing\nsys.modules['pkg_alias_zz'] = sys.modules[__name__]\n")
    status, out = imports(project, "pkg.procs", "--runtime")
    assert status == 0, out
    assert "__mp_main__" not in out and "pkg_alias_zz" not in out
    assert "loaded at run time by project code, not predicted (0):" in out
    assert "multiprocessing (stdlib)" in imports(project, "pkg.procs")[1]


def test_runtime_sets_apart_a_module_made_in_memory(project: Path) -> None:
    # A module object put into sys.modules with no spec (as Cython's cython_runtime is) was
    # never imported; a module loaded from a file by path, bypassing the finders, was.
    (project / "pkg" / "made.py").write_text(
        "import sys, types\nsys.modules['made_zz'] = types.ModuleType('made_zz')\n")
    status, out = imports(project, "pkg.made", "--runtime")
    assert status == 0, out
    assert "  by <not imported>: made_zz\n" in out
    (project / "plugin_zz.py").write_text("")
    (project / "pkg" / "bypath.py").write_text(
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('plugin_zz', "
        "__file__.rsplit('pkg', 1)[0] + 'plugin_zz.py')\n"
        "module = sys.modules['plugin_zz'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n")
    status, out = imports(project, "pkg.bypath", "--runtime")
    assert status == 1, out
    assert "  plugin_zz: pkg.bypath -> plugin_zz" in out


def test_runtime_import_failure_exits_2(project: Path) -> None:
    (project / "pkg" / "broken.py").write_text("import not_installed_zz\n")
    status, out = imports(project, "pkg.broken", "--runtime")
    assert status == 2
    assert ("error: the import failed: ModuleNotFoundError: "
            "No module named 'not_installed_zz'") in out
    assert "--python" in out


def test_runtime_with_a_missing_interpreter_is_a_usage_error(project: Path) -> None:
    status, out = imports(project, "pkg", "--runtime", "--python", str(project / "nope"))
    assert status == 2 and "interpreter not found" in out


def test_runtime_json_carries_the_comparison(project: Path) -> None:
    status, out = imports(project, "pkg", "--runtime", "--output-format", "json")
    runtime = json.loads(out)["runtime"]
    assert status == 0 and runtime["error"] is None
    assert runtime["predicted_not_loaded"] == ["not_installed_zz"]
    assert runtime["blind_spots"] == [] and runtime["importers"]["pkg.sub"] == "pkg"


# --- the pytest helper -------------------------------------------------------------------------


def test_helper_passes_when_nothing_forbidden_loads(project: Path) -> None:
    result = assert_import_does_not_load("pkg", ["csv", "pydantic"], sys_path=[project])
    assert "pkg.sub" in result.loaded and "decimal" in result.loaded


def test_helper_names_the_forbidden_module_and_its_chain(project: Path) -> None:
    with pytest.raises(AssertionError) as raised:
        assert_import_does_not_load("pkg.core.types", ["decimal", "csv"], sys_path=[project])
    assert str(raised.value) == ("importing pkg.core.types loaded forbidden modules:\n"
                                 "  decimal (decimal): pkg.core.types -> pkg -> pkg.sub -> decimal")


def test_helper_fails_when_the_import_fails(project: Path) -> None:
    with pytest.raises(AssertionError, match="No module named 'pkg.nothing'"):
        assert_import_does_not_load("pkg.nothing", ["csv"], sys_path=[project])


def test_probe_sees_modules_the_caller_already_imported(project: Path) -> None:
    # json is loaded in this process; the fresh interpreter must still report it.
    assert "json" in sys.modules
    assert "json" in import_in_subprocess("pkg", sys_path=[project]).loaded
