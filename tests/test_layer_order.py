"""LL005 layer-order: upward imports between configured layers."""

from __future__ import annotations

import textwrap

import pytest
from pydantic import ValidationError

from lion_lint.rules.layer_order import LayerOrder
from lintkit.testing import lint_sources

APP = {"app/__init__.py": "", "app/core/__init__.py": "", "app/ops/__init__.py": "",
       "app/cli/__init__.py": ""}
ORDER = ["app.core", "app.ops", ["app.cli", "app.studio"]]


def ll005(files: dict[str, str], **layers: object) -> list[tuple[str, int, str]]:
    config = {"layers": {"order": ORDER, **layers}}
    found = lint_sources({**APP, **files}, [LayerOrder], config=config)
    return [(d.path, d.location.line, d.message) for d in found]


def test_upward_import_is_reported_at_the_statement() -> None:
    assert ll005({"app/core/base.py": "import json\nfrom app.ops import run\n",
                  "app/ops/run.py": ""}) == [
        ("app/core/base.py", 2, "app.core.base (layer 1, app.core) imports app.ops.run "
                                "(layer 2, app.ops): a lower layer must not import a higher one")]


def test_same_layer_and_downward_imports_are_allowed() -> None:
    assert ll005({"app/ops/a.py": "from app.ops import b\nfrom app.core import base\n",
                  "app/ops/b.py": "", "app/core/base.py": "",
                  "app/cli/main.py": "import app.ops.a\nimport app.studio\n"}) == []


def test_modules_in_no_layer_are_free() -> None:
    assert ll005({"tools/__init__.py": "", "tools/x.py": "import app.cli\n",
                  "app/core/base.py": "import requests\n"}) == []


def test_longest_prefix_decides_the_layer() -> None:
    order = ["app.core", "app", "app.cli"]
    found = lint_sources({**APP, "app/core/base.py": "import app.helpers\n",
                          "app/helpers.py": "import app.cli\n"},
                         [LayerOrder], config={"layers": {"order": order}})
    assert [(d.path, d.location.line) for d in found] == [
        ("app/core/base.py", 1), ("app/helpers.py", 1)]


def test_relative_and_lazy_and_dynamic_imports_count() -> None:
    found = ll005({
        "app/core/a.py": "from ..cli import main\n",
        "app/core/b.py": 'import importlib\nimportlib.import_module("app.cli.main")\n',
        "app/core/c.py": "from app.ops import Runner\n",
        "app/ops/__init__.py": 'def __getattr__(name):\n    if name == "Runner":\n'
                               "        from app.cli.main import Runner\n        return Runner\n",
        "app/cli/main.py": "Runner = object\n",
    })
    assert [(path, line) for path, line, _ in found] == [
        ("app/core/a.py", 1), ("app/core/b.py", 2), ("app/core/c.py", 1)]
    target = "imports app.cli.main (layer 3, app.cli)"
    assert f"{target}: a lower layer" in found[0][2]
    assert f"{target} dynamically:" in found[1][2]
    assert f"{target} through a lazy export:" in found[2][2]


def test_one_diagnostic_per_statement_naming_the_highest_target() -> None:
    found = ll005({"app/core/base.py": "from app.cli import main\n", "app/cli/main.py": ""})
    assert len(found) == 1 and "imports app.cli.main" in found[0][2]


def test_call_time_and_type_checking_imports_only_when_asked() -> None:
    files = {"app/core/base.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                 "    import app.ops\n\ndef f():\n    import app.cli\n"}
    assert ll005(files) == []
    assert [line for _, line, _ in ll005(files, **{"include-type-checking": True})] == [3]
    (hit,) = ll005(files, **{"include-call-time": True})
    assert hit[1] == 6 and "at call time" in hit[2]


def test_exception_allows_one_reviewed_edge_and_stale_ones_are_reported() -> None:
    pyproject = textwrap.dedent("""\
        [tool.lion-lint.layers]
        order = ["app.core", "app.ops", ["app.cli", "app.studio"]]
        exceptions = [
          { importer = "app.core.base", imported = "app.ops", reason = "until #7 moves run" },
          { importer = "app.core.base", imported = "json", reason = "never upward" },
          { importer = "app.core.gone", imported = "app.cli", reason = "deleted module" },
        ]
        """)
    found = ll005({"app/core/base.py": "import json\nfrom app.ops import run\n",
                   "app/ops/run.py": "", "pyproject.toml": pyproject},
                  exceptions=[
                      {"importer": "app.core.base", "imported": "app.ops",
                       "reason": "until #7 moves run"},
                      {"importer": "app.core.base", "imported": "json", "reason": "never upward"},
                      {"importer": "app.core.gone", "imported": "app.cli",
                       "reason": "deleted module"}])
    assert found == [
        ("pyproject.toml", 5, 'layer exception "app.core.base -> json" excuses nothing: the '
                              "import is not upward; remove it"),
        ("pyproject.toml", 6, 'layer exception "app.core.gone -> app.cli" matches no checked '
                              "import edge; remove it"),
    ]


def test_no_layers_configured_checks_nothing() -> None:
    assert lint_sources({**APP, "app/core/x.py": "import app.cli\n"}, [LayerOrder]) == []


@pytest.mark.parametrize(("layers", "problem"), [
    ({"order": ["app"]}, "at least two layers"),
    ({"order": ["app.core", ["app.core", "app.ops"]]}, "listed in layers 1 and 2"),
    ({"order": ["app.core", []]}, "layer 2 lists no module"),
    ({"order": ["app core", "app.ops"]}, "not a dotted module name"),
    ({"order": ["a", "b"], "exceptions": [{"importer": "a", "imported": "b.*", "reason": "x"}]},
     "wildcards are refused"),
    ({"order": ["a", "b"], "strict": True}, "Extra inputs"),
])
def test_bad_layer_configuration_is_refused(layers: dict, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        LayerOrder.options_from_config({"layers": layers})
