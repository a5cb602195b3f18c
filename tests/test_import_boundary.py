"""LL004 import-boundary and the import graph under it: each edge kind, contract matching,
exceptions, and the reported chain."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import ValidationError

from lion_lint.rules.import_boundary import ImportBoundary
from lintkit.core.diagnostics import Diagnostic
from lintkit.core.imports import IMPORT_TIME, ImportGraph, ModulePattern, chain_to
from lintkit.core.index import ProjectIndex, module_name_for
from lintkit.parsing.extract import extract
from lintkit.testing import lint_sources


def graph_of(files: dict[str, str]) -> ImportGraph:
    facts = [extract(path, textwrap.dedent(source).encode(), path.endswith("__init__.py"))
             for path, source in files.items()]
    names = {f.path: module_name_for(f.path, ("",))[0] for f in facts}
    index = ProjectIndex(facts, names)
    # The graph reads its index weakly and builds a module's edges when asked: the index
    # must outlive it, as a run's Project keeps it.
    _KEPT_INDEXES.append(index)
    return ImportGraph(index)


_KEPT_INDEXES: list[ProjectIndex] = []


def loads(files: dict[str, str], module: str) -> dict[str, str]:
    """What importing ``module`` loads: module -> kind of the edge that first reaches it."""
    closure = graph_of(files).closure(module)
    return {m: e.kind for m, e in closure.items() if e is not None}


def kinds_from(files: dict[str, str], module: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for edge in graph_of(files).edges_from(module, ("parent", "import", "lazy", "dynamic",
                                                    "called", "call", "typing")):
        found.setdefault(edge.imported, set()).add(edge.kind)
    return found


PKG = {"pkg/__init__.py": "", "pkg/core/__init__.py": ""}


# --- edge kinds ------------------------------------------------------------------------------


def test_importing_a_submodule_runs_its_parent_packages() -> None:
    files = {**PKG, "pkg/__init__.py": "import heavy\n", "pkg/core/types.py": "import json\n"}
    found = loads(files, "pkg.core.types")
    assert found["pkg"] == "parent" and found["pkg.core"] == "parent"
    assert found["heavy"] == "import" and found["json"] == "import"


def test_import_of_a_dotted_module_runs_the_project_packages_above_it() -> None:
    files = {**PKG, "pkg/core/__init__.py": "import heavy\n", "pkg/core/types.py": "",
             "app.py": "import pkg.core.types\n"}
    found = loads(files, "app")
    assert {"pkg.core.types", "pkg.core", "pkg", "heavy"} <= set(found)


def test_from_package_import_submodule_loads_the_submodule() -> None:
    files = {**PKG, "pkg/core/types.py": "import heavy\n", "app.py": "from pkg.core import types\n"}
    found = loads(files, "app")
    assert found["pkg.core.types"] == "import" and "heavy" in found


def test_relative_imports_resolve_against_the_package() -> None:
    files = {**PKG, "pkg/core/types.py": "from .. import extra\nfrom ..core import other\n",
             "pkg/extra.py": "import heavy\n", "pkg/core/other.py": ""}
    found = loads(files, "pkg.core.types")
    assert {"pkg.extra", "pkg.core.other", "heavy"} <= set(found)


@pytest.mark.parametrize("guard", [
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:",
    "import typing\nif typing.TYPE_CHECKING:",
    "import typing as t\nif t.TYPE_CHECKING:",
    "from typing import TYPE_CHECKING as TC\nif TC:",
])
def test_type_checking_true_branch_adds_no_import_time_edge(guard: str) -> None:
    files = {"mod.py": f"{guard}\n    import heavy\n"}
    assert "heavy" not in loads(files, "mod")
    assert kinds_from(files, "mod")["heavy"] == {"typing"}


def test_type_checking_else_branch_and_negation_run_at_import() -> None:
    files = {"mod.py": "from typing import TYPE_CHECKING\n"
                       "if TYPE_CHECKING:\n    import light\nelse:\n    import heavy\n"
                       "if not TYPE_CHECKING:\n    import other\n"}
    found = loads(files, "mod")
    assert "heavy" in found and "other" in found and "light" not in found


def test_try_except_both_branches_run_at_import() -> None:
    files = {"mod.py": "try:\n    import orjson as json\nexcept ImportError:\n    import heavy\n"
                       "else:\n    import later\nfinally:\n    import last\n"}
    assert {"orjson", "heavy", "later", "last"} <= set(loads(files, "mod"))


def test_class_body_and_with_block_imports_run_at_import() -> None:
    files = {"mod.py": "import contextlib\nclass C:\n    import heavy\n"
                       "with contextlib.suppress(ImportError):\n    import other\n"}
    assert {"heavy", "other"} <= set(loads(files, "mod"))


def test_function_body_imports_are_call_time_edges_only() -> None:
    files = {"mod.py": "def f():\n    import heavy\n\nclass C:\n    def m(self):\n"
                       "        from pkg import thing\n"}
    assert "heavy" not in loads(files, "mod") and "pkg" not in loads(files, "mod")
    kinds = kinds_from(files, "mod")
    assert kinds["heavy"] == {"call"} and kinds["pkg"] == {"call"}


def test_main_block_imports_do_not_run_at_import() -> None:
    files = {"mod.py": 'if __name__ == "__main__":\n    import heavy\n'}
    assert "heavy" not in loads(files, "mod")


def test_lazy_getattr_map_loads_the_mapped_module_for_that_name_only() -> None:
    files = {
        "pkg/__init__.py": (
            '_LAZY = {"Heavy": ("heavy_mod", "Heavy"), "Light": ("light_mod", "Light")}\n'
            "def __getattr__(name):\n"
            "    import importlib\n"
            "    module, attr = _LAZY[name]\n"
            '    return getattr(importlib.import_module("." + module, __name__), attr)\n'),
        "pkg/heavy_mod.py": "import heavy\n",
        "pkg/light_mod.py": "",
        "app.py": "from pkg import Heavy\n",
    }
    found = loads(files, "app")
    assert found["pkg.heavy_mod"] == "lazy" and "heavy" in found
    assert "pkg.light_mod" not in found
    assert "pkg.heavy_mod" not in loads(files, "pkg")  # importing the package alone is lazy


def test_lazy_getattr_branch_loads_the_module_for_that_name() -> None:
    files = {
        "pkg/__init__.py": ('def __getattr__(name):\n    if name == "Model":\n'
                            "        from pkg.models import Model\n        return Model\n"
                            "    raise AttributeError(name)\n"),
        "pkg/models.py": "import pydantic\n",
        "app.py": "from pkg import Model\n",
    }
    found = loads(files, "app")
    assert found["pkg.models"] == "lazy" and "pydantic" in found


@pytest.mark.parametrize(("code", "expected"), [
    ('import importlib\nimportlib.import_module("pkg.heavy_mod")\n', "pkg.heavy_mod"),
    ('from importlib import import_module as im\nim("pkg.heavy_mod")\n', "pkg.heavy_mod"),
    ('import importlib\nimportlib.import_module(".heavy_mod", __package__)\n', "pkg.heavy_mod"),
    ('import importlib\nimportlib.import_module(".heavy_mod", package="pkg")\n', "pkg.heavy_mod"),
    ('__import__("pkg.heavy_mod")\n', "pkg.heavy_mod"),
    ('import importlib\nclass C:\n    x = importlib.import_module("pkg.heavy_mod")\n',
     "pkg.heavy_mod"),
])
def test_literal_dynamic_imports_at_import_time(code: str, expected: str) -> None:
    files = {"pkg/__init__.py": "", "pkg/heavy_mod.py": "import heavy\n", "pkg/user.py": code}
    found = loads(files, "pkg.user")
    assert found[expected] == "dynamic" and "heavy" in found


def test_a_project_function_named_import_module_is_not_a_dynamic_import() -> None:
    files = {"mod.py": 'def import_module(name):\n    return name\nimport_module("heavy")\n'}
    graph = graph_of(files)
    assert "heavy" not in graph.closure("mod") and not graph.opaque


def test_non_literal_dynamic_import_is_opaque() -> None:
    files = {"mod.py": "import importlib\nNAME = 'heavy'\nimportlib.import_module(NAME)\n"
                       "def later(n):\n    return importlib.import_module(n)\n"}
    graph = graph_of(files)
    assert [(o.span[0], o.when) for o in graph.opaque] == [(3, "import"), (5, "call")]


def test_imports_in_functions_called_at_import_time_run_at_import() -> None:
    files = {"mod.py": "def _setup():\n    import heavy\n    _more()\n\n"
                       "def _more():\n    import other\n\n_setup()\n",
             "deco.py": "from mod import _more\n\n@_more\ndef f():\n    pass\n"}
    found = loads(files, "mod")
    assert found["heavy"] == "called" and found["other"] == "called"
    assert loads(files, "deco")["other"] in ("called", "import")


# --- built on demand -------------------------------------------------------------------------

# Every edge kind, opaque imports at import and at call time, a decorator run at import, a
# lazy export map and a module outside the project under a project package.
MIXED = {
    "pkg/__init__.py": "import pkg.a\n",
    "pkg/a.py": "from . import b\nimport pkg.gen_ext\nfrom typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    import pkg.c\n",
    "pkg/b.py": "import importlib\nNAME = 'x'\nimportlib.import_module(NAME)\n"
                "def later():\n    import pkg.c\n    return importlib.import_module(NAME)\n",
    "pkg/c.py": "from pkg.deco import register\n@register\ndef f():\n    pass\n",
    "pkg/deco.py": "def register(fn):\n    import heavy\n    return fn\n",
    "pkg/lazy.py": "def __getattr__(name):\n    if name == 'D':\n"
                   "        from pkg.d import D\n        return D\n    raise AttributeError(name)\n",
    "pkg/d.py": "class D:\n    pass\n",
    "pkg/unrelated.py": "import json\n",
}
EVERY_KIND = ("parent", "import", "lazy", "dynamic", "called", "call", "typing")


def _whole(graph: ImportGraph) -> list[str]:
    return [repr(e) for e in graph.edges(EVERY_KIND)] + [repr(o) for o in graph.opaque]


@pytest.mark.parametrize("first", [(), ("pkg.unrelated",), ("pkg.d", "pkg.b", "pkg.gen_ext"),
                                   ("pkg.lazy", "pkg.c", "pkg.deco", "pkg")])
def test_the_graph_is_the_same_whichever_modules_are_asked_for_first(
        first: tuple[str, ...]) -> None:
    graph = graph_of(MIXED)
    for module in first:
        graph.closure(module, EVERY_KIND)
    whole = _whole(graph)
    assert whole == _whole(graph_of(MIXED))
    assert any("'called'" in e for e in whole) and any("'typing'" in e for e in whole)
    assert any("gen_ext', imported='pkg'" in e for e in whole) and "OpaqueImport" in whole[-1]


def test_a_closure_builds_only_the_modules_it_reaches() -> None:
    graph = graph_of(MIXED)
    reached = graph.closure("pkg.b")
    assert set(reached) == {"pkg.b", "pkg", "pkg.a", "importlib", "pkg.gen_ext", "typing"}
    # pkg.c and pkg.unrelated are not reached at import time: their edges are never built.
    assert "pkg.unrelated" not in graph._out and "pkg.c" not in graph._out
    assert [o.span[0] for o in graph.opaque_in(reached, ("import",))] == [3]


def test_a_module_outside_the_project_asked_for_by_name() -> None:
    graph = graph_of(MIXED)
    # Imported by pkg.a, so importing it runs the package above it, as the whole graph says.
    assert [(e.imported, e.kind) for e in graph.edges_from("pkg.gen_ext")] == [("pkg", "parent")]
    # Imported by nothing in the project: no edges, as before the graph was built lazily.
    assert graph_of(MIXED).edges_from("pkg.not_there") == []


# --- contract matching -----------------------------------------------------------------------


@pytest.mark.parametrize(("pattern", "module", "matches"), [
    ("pydantic", "pydantic", True),
    ("pydantic", "pydantic.fields", True),
    ("pydantic", "pydantic_core", False),
    ("pydantic", "my.pydantic", False),
    ("pydantic_*", "pydantic_core", True),
    ("pydantic_*", "pydantic_core.core_schema", True),
    ("pydantic_*", "pydantic", False),
    ("lionagi.*.sdk", "lionagi.providers.sdk", True),
    ("lionagi.*.sdk", "lionagi.providers.openai.sdk", False),
    ("lionagi.**.sdk", "lionagi.providers.openai.sdk.client", True),
])
def test_module_pattern(pattern: str, module: str, matches: bool) -> None:
    assert ModulePattern(pattern).matches(module) is matches


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a b", "a-b"])
def test_module_pattern_refuses_what_is_not_a_module_name(bad: str) -> None:
    with pytest.raises(ValueError):
        ModulePattern(bad)


def contract(forbid: list[str], modules: list[str] | None = None, **extra: object) -> dict:
    return {"boundaries": [{"name": "light core", "modules": modules or ["pkg.core"],
                            "forbid": forbid, **extra}]}


def ll004(files: dict[str, str], config: dict | None = None) -> list[Diagnostic]:
    return lint_sources(files, [ImportBoundary], config=config)


def brief(found: list[Diagnostic]) -> list[tuple[str, int, str]]:
    return [(d.path, d.location.line, d.message) for d in found]


def test_forbidden_package_matches_its_submodules_but_not_lookalikes() -> None:
    files = {**PKG, "pkg/core/a.py": "import pydantic.fields\n",
             "pkg/core/b.py": "import pydantic_core\n"}
    assert brief(ll004(files, contract(["pydantic"]))) == [
        ("pkg/core/a.py", 1,
         'importing pkg.core.a loads pydantic.fields (contract "light core" forbids pydantic)')]


def test_glob_matches_sibling_packages() -> None:
    files = {**PKG, "pkg/core/b.py": "import pydantic_core\n"}
    assert [d.message for d in ll004(files, contract(["pydantic_*"]))] == [
        'importing pkg.core.b loads pydantic_core (contract "light core" forbids pydantic_*)']


def test_from_import_of_an_outside_submodule_matches() -> None:
    files = {**PKG, "pkg/core/a.py": "from google import genai\n"}
    assert [d.message for d in ll004(files, contract(["google.genai"]))] == [
        'importing pkg.core.a loads google.genai (contract "light core")']


# --- the done-when fixtures -------------------------------------------------------------------

LEAK = {
    "lionagi/__init__.py": "import logging\nfrom . import ln\nfrom pydantic import BaseModel\n",
    "lionagi/ln/__init__.py": "from .types import Spec\n",
    "lionagi/ln/types/__init__.py": "from .spec import Spec\n",
    "lionagi/ln/types/spec.py": "from dataclasses import dataclass\n\nclass Spec:\n    pass\n",
}


def test_default_contract_reports_a_leak_through_a_parent_package_with_the_chain() -> None:
    found = ll004(LEAK)
    assert brief(found) == [("lionagi/__init__.py", 3, 'importing lionagi.ln.types loads '
                             'pydantic (contract "neutral layer")')]
    (d,) = found
    statement = "from pydantic import BaseModel"
    assert (d.location.column, d.location.end_column) == (1, len(statement) + 1)
    assert d.detail == ("lionagi.ln.types -> lionagi:  parent package",
                        "lionagi -> pydantic:          lionagi/__init__.py:3")
    assert [(r.location.path, r.location.line, r.message) for r in d.related] == [
        ("lionagi/__init__.py", 1, "lionagi.ln.types -> lionagi: parent package"),
        ("lionagi/__init__.py", 3, "lionagi -> pydantic: lionagi/__init__.py:3"),
    ]


def test_default_contract_ignores_an_import_inside_a_function() -> None:
    files = {**LEAK, "lionagi/__init__.py": (
        "from . import ln\n\ndef model_base():\n    from pydantic import BaseModel\n"
        "    return BaseModel\n")}
    assert ll004(files) == []


def test_default_contract_checks_nothing_outside_lionagi() -> None:
    assert ll004({"app/__init__.py": "import pydantic\n"}) == []


def test_the_chain_is_the_shortest_and_names_each_hop() -> None:
    files = {**PKG, "pkg/core/types.py": "from pkg import a\nimport pkg.b\n",
             "pkg/a.py": "from pkg import c\n", "pkg/c.py": "import heavy\n",
             "pkg/b.py": "import heavy.sub\n"}
    found = ll004(files, contract(["heavy"], modules=["pkg.core.types"]))
    assert [(d.location.line, len(d.detail)) for d in found] == [(1, 3), (2, 2)]
    assert found[0].detail[-1].endswith("pkg/c.py:1")


def test_one_diagnostic_per_first_hop_even_with_many_roots() -> None:
    files = {**PKG, "pkg/__init__.py": "import heavy\n", "pkg/core/a.py": "", "pkg/core/b.py": ""}
    found = ll004(files, contract(["heavy"]))
    assert brief(found) == [
        ("pkg/__init__.py", 1, 'importing pkg.core loads heavy (contract "light core")')]


def test_a_chain_through_another_root_is_reported_at_that_root() -> None:
    files = {**PKG, "pkg/core/__init__.py": "from .a import x\n",
             "pkg/core/a.py": "import heavy\nx = 1\n"}
    assert brief(ll004(files, contract(["heavy"]))) == [
        ("pkg/core/a.py", 1, 'importing pkg.core.a loads heavy (contract "light core")')]


def test_one_diagnostic_per_forbidden_module() -> None:
    files = {**PKG, "pkg/__init__.py": "import heavy\nimport sqlalchemy\n"}
    found = ll004(files, contract(["heavy", "sqlalchemy"]))
    assert [(d.location.line, d.message.split(" loads ")[1].split(" ")[0]) for d in found] == [
        (1, "heavy"), (2, "sqlalchemy")]


def test_lazy_export_leak_is_reported_at_the_from_import() -> None:
    files = {**PKG, "pkg/__init__.py": (
        '_MAP = {"Model": "pkg.models:Model"}\n\ndef __getattr__(name):\n'
        "    import importlib\n    mod, _, attr = _MAP[name].partition(':')\n"
        "    return getattr(importlib.import_module(mod), attr)\n"),
        "pkg/models.py": "import pydantic\n", "pkg/core/types.py": "from pkg import Model\n"}
    (d,) = ll004(files, contract(["pydantic"]))
    assert (d.path, d.location.line) == ("pkg/core/types.py", 1)
    assert "lazy export" in d.detail[0]


def test_call_time_edges_are_checked_when_the_contract_asks() -> None:
    files = {**PKG, "pkg/core/types.py": "def build():\n    import heavy\n"}
    assert ll004(files, contract(["heavy"])) == []
    (d,) = ll004(files, contract(["heavy"], **{"include-call-time": True}))
    assert d.location.line == 2
    assert d.message == ("importing pkg.core.types, then calling functions it loads, can load "
                         'heavy (contract "light core", which includes call-time imports)')
    assert "call-time import" in d.detail[0]


def test_non_literal_dynamic_import_in_the_closure_is_a_warning() -> None:
    files = {**PKG,
             "pkg/core/types.py": "import importlib\nNAME = 'x'\nimportlib.import_module(NAME)\n",
             "other.py": "import importlib\nimportlib.import_module(input())\n"}
    (d,) = ll004(files, contract(["heavy"]))
    assert (d.path, d.location.line, d.severity) == ("pkg/core/types.py", 3, "warning")
    assert "gate cannot see what it loads" in d.message


# --- exceptions ------------------------------------------------------------------------------


def exception(importer: str, imported: str, reason: str = "reviewed in #12") -> dict:
    return {"importer": importer, "imported": imported, "reason": reason}


def test_exception_lets_a_reviewed_edge_through() -> None:
    files = {**PKG, "pkg/__init__.py": "import heavy\n"}
    config = contract(["heavy"], exceptions=[exception("pkg", "heavy")])
    assert ll004(files, config) == []


def test_exception_covers_one_edge_only() -> None:
    files = {**PKG, "pkg/__init__.py": "import heavy\n", "pkg/core/a.py": "import heavy.x\n"}
    config = contract(["heavy"], exceptions=[exception("pkg", "heavy")])
    assert brief(ll004(files, config)) == [
        ("pkg/core/a.py", 1,
         'importing pkg.core.a loads heavy.x (contract "light core" forbids heavy)')]


def test_unused_exceptions_are_reported_in_pyproject() -> None:
    pyproject = textwrap.dedent("""\
        [[tool.lion-lint.boundaries]]
        name = "light core"
        modules = ["pkg.core"]
        forbid = ["heavy"]
        exceptions = [
          { importer = "pkg", imported = "json", reason = "harmless" },
          { importer = "pkg.gone", imported = "heavy", reason = "removed long ago" },
        ]
        """)
    files = {**PKG, "pkg/__init__.py": "import json\n", "pyproject.toml": pyproject}
    config = contract(["heavy"], exceptions=[exception("pkg", "json"),
                                              exception("pkg.gone", "heavy")])
    assert brief(ll004(files, config)) == [
        ("pyproject.toml", 6, 'exception "pkg -> json" of contract "light core" excuses '
                              "nothing: no forbidden module is loaded through it; remove it"),
        ("pyproject.toml", 7, 'exception "pkg.gone -> heavy" of contract "light core" matches '
                              "no import edge that runs at import time; remove it"),
    ]


@pytest.mark.parametrize(("entry", "problem"), [
    (exception("pkg.*", "heavy"), "wildcards are refused"),
    (exception("pkg", "heavy*"), "wildcards are refused"),
    (exception("pkg", "heavy", reason="  "), "needs a reason"),
    ({"importer": "pkg", "imported": "heavy"}, "reason"),
])
def test_bad_exceptions_are_configuration_errors(entry: dict, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        ImportBoundary.options_from_config(contract(["heavy"], exceptions=[entry]))


def test_contract_that_matches_no_module_is_reported() -> None:
    files = {**PKG, "pyproject.toml": '[[tool.lion-lint.boundaries]]\nname = "typo"\n'}
    config = {"boundaries": [{"name": "typo", "modules": ["pkg.cor"], "forbid": ["heavy"]}]}
    assert brief(ll004(files, config)) == [
        ("pyproject.toml", 2, "contract \"typo\" matches no module of the project "
                              "(modules = ['pkg.cor'])")]


def test_empty_boundaries_turn_the_default_contract_off() -> None:
    assert ll004(LEAK, {"boundaries": []}) == []


# --- through the command line ----------------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> None:
    for relative, source in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lintkit", *args], cwd=root,
                          capture_output=True, text=True, env={"NO_COLOR": "1", "PATH": ""})


PYPROJECT = '[tool.lion-lint]\nselect = ["LL004"]\n'


def test_cli_formats_carry_the_chain(tmp_path: Path) -> None:
    write(tmp_path, {**LEAK, "pyproject.toml": PYPROJECT})
    concise = run(tmp_path, "--output-format", "concise")
    assert concise.returncode == 1
    assert concise.stdout == ('lionagi/__init__.py:3:1: LL004 importing lionagi.ln.types loads '
                              'pydantic (contract "neutral layer")\n')
    full = run(tmp_path, "--output-format", "full").stdout
    assert "    lionagi.ln.types -> lionagi:  parent package\n" in full
    assert "    lionagi -> pydantic:          lionagi/__init__.py:3\n" in full
    assert "note:" not in full  # the chain is printed once
    data = json.loads(run(tmp_path, "--output-format", "json").stdout)
    (d,) = data["diagnostics"]
    assert [(r["line"], r["message"]) for r in d["related"]] == [
        (1, "lionagi.ln.types -> lionagi: parent package"),
        (3, "lionagi -> pydantic: lionagi/__init__.py:3")]
    assert len(d["detail"]) == 2


def test_cli_refuses_a_wildcard_exception(tmp_path: Path) -> None:
    write(tmp_path, {**LEAK, "pyproject.toml": PYPROJECT + textwrap.dedent("""\
        [[tool.lion-lint.boundaries]]
        name = "neutral"
        modules = ["lionagi.ln.types"]
        forbid = ["pydantic"]
        exceptions = [{ importer = "lionagi.*", imported = "pydantic", reason = "all of it" }]
        """)})
    result = run(tmp_path)
    assert result.returncode == 2
    assert "pyproject.toml: [tool.lion-lint] key 'boundaries.0.exceptions.0.importer'" \
        in result.stderr
    assert "wildcards are refused" in result.stderr


def test_import_time_closure_reaches_in_order() -> None:
    graph = graph_of({**PKG, "pkg/__init__.py": "import a\nimport b\n", "pkg/core/x.py": ""})
    reached = graph.closure("pkg.core.x", IMPORT_TIME)
    assert list(reached) == ["pkg.core.x", "pkg", "pkg.core", "a", "b"]
    assert [e.kind for e in chain_to(reached, "b")] == ["parent", "import"]


def test_examples_fire_ll004_and_ll005_and_clean_passes() -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    lionish = run(examples / "lionish", "--select", "LL004,LL005", "--output-format", "concise")
    assert lionish.returncode == 1, lionish.stderr
    assert [line.split(": ", 1)[0] + ": " + line.split(": ", 1)[1][:5]
            for line in lionish.stdout.splitlines()] == [
        "src/lionish/__init__.py:4:1: LL004",
        "src/lionish/ops/dispatch.py:3:1: LL005",
    ]
    clean = run(examples / "clean", "--select", "LL004,LL005")
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_readme_configuration_validates_and_lists_the_default_contract() -> None:
    import re

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    from lion_lint.rules.import_boundary import NEUTRAL_LAYER_FORBIDS
    from lion_lint.rules.layer_order import LayerOrder

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    start = readme.index("[[tool.lion-lint.boundaries]]")
    table = tomllib.loads(readme[start:].split("```", 1)[0])["tool"]["lion-lint"]
    assert ImportBoundary.options_from_config(table).boundaries
    assert LayerOrder.options_from_config(table).layers is not None
    default = readme[readme.index("LionAGI's neutral-layer contract applies"):]
    default = default.split("\n\n", 1)[0]
    named = set(re.findall(r"`([a-z0-9_*.]+)`", default)) - {"lionagi.ln.types"}
    assert named == set(NEUTRAL_LAYER_FORBIDS)


def test_a_waiver_on_the_first_hop_suppresses_the_diagnostic() -> None:
    files = {**LEAK, "lionagi/__init__.py": (
        "import logging\nfrom . import ln\n"
        "from pydantic import BaseModel  # lion-lint: ignore[LL004] -- until #812 lands\n")}
    assert ll004(files) == []


def test_the_import_graph_is_built_only_when_a_contract_matches_a_module(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under the default contract any project but LionAGI has no module to check: the
    graph (the rule's cost on a large project) is never built."""
    from lion_lint.rules import import_boundary

    built: list[object] = []
    real = import_boundary.import_graph
    monkeypatch.setattr(import_boundary, "import_graph",
                        lambda index: built.append(index) or real(index))
    other = {"app/__init__.py": "", "app/core.py": "import json\nimport pydantic\n"}
    assert lint_sources(other, [ImportBoundary]) == []
    assert built == []
    lionish = {"lionagi/__init__.py": "", "lionagi/ln/__init__.py": "",
               "lionagi/ln/types.py": "import pydantic\n"}
    assert [d.code for d in lint_sources(lionish, [ImportBoundary])] == ["LL004"]
    assert len(built) == 1  # and once, however many times the rule asks
