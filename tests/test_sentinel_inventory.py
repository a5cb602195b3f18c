"""LL002 sentinel-inventory: sites, the constant's spellings, qualnames, resolution and each
numbered report of issue #3, on real temporary projects shaped like LionAGI (so the rule's
defaults apply without configuration)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lion_lint.rules.sentinel_inventory import SentinelInventory
from lintkit.core.diagnostics import Diagnostic
from lintkit.testing import lint_sources

REPO = Path(__file__).resolve().parent.parent
CONSTANT_PATH = "lionagi/ln/types/_sentinel.py"

SENTINEL = """\
from typing import Final

LEGACY_SENTINEL_COLLAPSE_ALLOWLIST: Final[frozenset[tuple[str, str]]] = frozenset(
    {
%s
    }
)


def _compat_policy(*, site, none_as_sentinel=False, empty_as_sentinel=False):
    return (site, none_as_sentinel, empty_as_sentinel)


def _compat_is_sentinel(value, *, site, none_as_sentinel=False, empty_as_sentinel=False):
    policy = _compat_policy(site=site, none_as_sentinel=none_as_sentinel,
                            empty_as_sentinel=empty_as_sentinel)
    return policy and value is None


def _compat_not_sentinel(value, *, site, none_as_sentinel=False, empty_as_sentinel=False):
    return not _compat_is_sentinel(value, site=site, none_as_sentinel=none_as_sentinel,
                                   empty_as_sentinel=empty_as_sentinel)


def is_sentinel(value, *, none_as_sentinel=False, empty_as_sentinel=False):
    return value is None


def not_sentinel(value, none_as_sentinel=False, empty_as_sentinel=False):
    return value is not None
"""
FIRST_ENTRY_LINE = 5  # the line of the first entry written into SENTINEL

BASE = """\
from dataclasses import dataclass
from typing import ClassVar

from ._sentinel import _compat_policy


@dataclass(frozen=True)
class ModelConfig:
    none_as_sentinel: bool = False
    empty_as_sentinel: bool = False
    strict: bool = False


class Params:
    _config: ClassVar[ModelConfig] = ModelConfig()

    @classmethod
    def _policy(cls):
        config = cls._config
        return _compat_policy(site=f"{cls.__module__}.{cls.__qualname__}._config",
                              none_as_sentinel=config.none_as_sentinel,
                              empty_as_sentinel=config.empty_as_sentinel)
"""


def mechanism(*entries: str) -> dict[str, str]:
    """LionAGI's layout: the constant and gateways, ModelConfig, and the re-exports."""
    return {
        "lionagi/__init__.py": "",
        "lionagi/ln/__init__.py": "from .types import ModelConfig, Params, is_sentinel, not_sentinel\n",
        "lionagi/ln/types/__init__.py": (
            "from ._sentinel import is_sentinel, not_sentinel\n"
            "from .base import ModelConfig, Params\n"),
        CONSTANT_PATH: SENTINEL % "\n".join(f"        {e}," for e in entries),
        "lionagi/ln/types/base.py": BASE,
    }


Found = list[tuple[str, int, int, str]]


def run(files: dict[str, str], *entries: str, options: dict[str, object] | None = None) -> list[Diagnostic]:
    return lint_sources({**mechanism(*entries), **files}, [SentinelInventory], options=options)


def ll002(files: dict[str, str], *entries: str, **options: object) -> Found:
    return [(d.path, d.location.line, d.location.column, d.message)
            for d in run(files, *entries, options=options)]


def where(found: Found) -> list[tuple[str, int, int]]:
    return [(path, line, column) for path, line, column, _ in found]


def pair(site: str, axis: str) -> str:
    return f"({site!r}, {axis!r})"


# --- a project whose inventory equals the constant ------------------------------------------

EXACT = {
    "lionagi/models/__init__.py": "",
    "lionagi/models/legacy.py": """\
from typing import ClassVar

from lionagi.ln.types import ModelConfig, Params
from lionagi.ln.types._sentinel import _compat_is_sentinel, _compat_not_sentinel


class Legacy(Params):
    _config = ModelConfig(none_as_sentinel=True)


class Annotated(Params):
    _config: ClassVar[ModelConfig] = ModelConfig(
        none_as_sentinel=True,
        empty_as_sentinel=True,
    )


class Inherits(Legacy):
    pass


class Modern(Params):
    _config = ModelConfig(none_as_sentinel=False, strict=True)


class Outer:
    class Inner(Params):
        _config = ModelConfig(True)

    def handle(self, values):
        keep = lambda v: _compat_not_sentinel(
            v, site="lionagi.models.legacy.Outer.handle", empty_as_sentinel=True)
        return [v for v in values if keep(v)]


def make():
    class Local(Params):
        _config = ModelConfig(False, True)

    def inner(value):
        return _compat_is_sentinel(value, site="lionagi.models.legacy.make.inner",
                                   none_as_sentinel=True, empty_as_sentinel=False)

    return Local, inner


def strip(obj, none_as_sentinel=False, empty_as_sentinel=False):
    # A dynamic site: its flags are computed, and count as set.
    if isinstance(obj, dict):
        return {
            k: strip(v, none_as_sentinel=none_as_sentinel)
            for k, v in obj.items()
            if not _compat_is_sentinel(v, site="lionagi.models.legacy.strip",
                                       none_as_sentinel=none_as_sentinel,
                                       empty_as_sentinel=empty_as_sentinel)
        }
    return obj
""",
}
EXACT_ENTRIES = (
    pair("lionagi.models.legacy.Legacy._config", "none"),
    pair("lionagi.models.legacy.Annotated._config", "none"),
    pair("lionagi.models.legacy.Annotated._config", "empty"),
    pair("lionagi.models.legacy.Outer.Inner._config", "none"),
    pair("lionagi.models.legacy.Outer.handle", "empty"),
    pair("lionagi.models.legacy.make.<locals>.Local._config", "empty"),
    pair("lionagi.models.legacy.make.inner", "none"),
    repr("lionagi.models.legacy.strip"),
)
EXACT_OPTIONS = {"dynamic-sites": ["lionagi.models.legacy.strip"]}


def test_inventory_equal_to_the_constant_is_clean() -> None:
    assert ll002(EXACT, *EXACT_ENTRIES, **EXACT_OPTIONS) == []


def test_each_entry_of_the_exact_inventory_is_needed() -> None:
    # Dropping any entry must be reported at the site that needs it: the clean result above
    # is not an accident of the rule seeing nothing.
    for dropped in range(len(EXACT_ENTRIES)):
        kept = EXACT_ENTRIES[:dropped] + EXACT_ENTRIES[dropped + 1:]
        found = ll002(EXACT, *kept, **EXACT_OPTIONS)
        assert found, f"dropping {EXACT_ENTRIES[dropped]} went unnoticed"
        assert all("is not in LEGACY_SENTINEL_COLLAPSE_ALLOWLIST" in m for *_, m in found)


def test_no_sentinel_use_and_no_constant_is_clean() -> None:
    files = {"app/__init__.py": "", "app/main.py": "def f(none_as_sentinel=True):\n    return 1\n"}
    assert lint_sources(files, [SentinelInventory]) == []


# --- 1. a site missing from the constant -------------------------------------------------------

MISSING_CASES = {
    "keyword": ("class C(Params):\n    _config = ModelConfig(empty_as_sentinel=True)\n",
                2, 45, "app.mod.C._config", "empty", "empty_as_sentinel"),
    "positional": ("class C(Params):\n    _config = ModelConfig(True)\n",
                   2, 27, "app.mod.C._config", "none", "none_as_sentinel"),
    "second positional": ("class C(Params):\n    _config = ModelConfig(False, 1)\n",
                          2, 34, "app.mod.C._config", "empty", "empty_as_sentinel"),
    "literal ** dict": ("class C(Params):\n    _config = ModelConfig(**{'none_as_sentinel': True})\n",
                        2, 50, "app.mod.C._config", "none", "none_as_sentinel"),
    "annotated": ("class C(Params):\n    _config: ClassVar[ModelConfig] = "
                  "ModelConfig(none_as_sentinel=True)\n",
                  2, 67, "app.mod.C._config", "none", "none_as_sentinel"),
    "gateway": ("def f(v):\n    return _compat_is_sentinel(v, site='app.mod.f', "
                "none_as_sentinel=True)\n", 2, 70, "app.mod.f", "none", "none_as_sentinel"),
}
HEADER = ("from typing import ClassVar\n"
          "from lionagi.ln.types import ModelConfig, Params\n"
          "from lionagi.ln.types._sentinel import _compat_is_sentinel\n")


@pytest.mark.parametrize("case", MISSING_CASES.values(), ids=MISSING_CASES.keys())
def test_site_missing_from_the_constant(case: tuple[str, int, int, str, str, str]) -> None:
    body, line, column, site, axis, flag = case
    found = ll002({"app/__init__.py": "", "app/mod.py": HEADER + body})
    assert where(found) == [("app/mod.py", line + 3, column)], found
    message = found[0][3]
    assert f"{site!r} sets {flag} (axis {axis!r})" in message
    assert f"({site!r}, {axis!r}) is not in LEGACY_SENTINEL_COLLAPSE_ALLOWLIST " \
           f"({CONSTANT_PATH}:3)" in message
    assert "contract change" in message


def test_missing_site_points_at_the_constant_as_related() -> None:
    diagnostics = run({"app/__init__.py": "", "app/mod.py": HEADER + MISSING_CASES["keyword"][0]})
    (diagnostic,) = diagnostics
    assert [(r.location.path, r.location.line) for r in diagnostic.related] == [(CONSTANT_PATH, 3)]
    assert diagnostic.scope == "app.mod.C._config"


def test_one_report_per_flag_that_sets_a_missing_axis() -> None:
    body = ("class C(Params):\n"
            "    _config = ModelConfig(none_as_sentinel=True, empty_as_sentinel=True)\n")
    found = ll002({"app/__init__.py": "", "app/mod.py": HEADER + body},
                  pair("app.mod.C._config", "none"))
    assert where(found) == [("app/mod.py", 5, 68)]
    assert "(axis 'empty')" in found[0][3]


def test_subclass_inherits_the_config_and_is_no_site() -> None:
    body = ("class C(Params):\n    _config = ModelConfig(none_as_sentinel=True)\n\n"
            "class D(C):\n    pass\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": HEADER + body},
                 pair("app.mod.C._config", "none")) == []


def test_false_and_omitted_flags_are_not_sites() -> None:
    body = ("class C(Params):\n    _config = ModelConfig(none_as_sentinel=False, strict=True)\n\n"
            "class D(Params):\n    _config = ModelConfig(0, '', strict=True)\n\n"
            "def f(v):\n    return _compat_is_sentinel(v, site='app.mod.f', "
            "empty_as_sentinel=None)\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": HEADER + body}) == []


def test_type_checking_branch_is_not_a_site() -> None:
    body = ("from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    class C(Params):\n        _config = ModelConfig(none_as_sentinel=True)\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": HEADER + body}) == []


# --- 2. stale entries ------------------------------------------------------------------------------


def test_stale_entry_is_reported_at_its_own_line() -> None:
    body = "class C(Params):\n    _config = ModelConfig(none_as_sentinel=True)\n"
    found = ll002({"app/__init__.py": "", "app/mod.py": HEADER + body},
                  pair("app.mod.C._config", "none"), pair("app.mod.Gone._config", "empty"),
                  pair("app.mod.C._config", "empty"))
    # An entry's span is its tuple without the parentheses, as for every expression.
    assert where(found) == [(CONSTANT_PATH, FIRST_ENTRY_LINE + 1, 10),
                            (CONSTANT_PATH, FIRST_ENTRY_LINE + 2, 10)]
    assert found[0][3] == ("stale entry: no site sets ('app.mod.Gone._config', 'empty') any more; "
                           "remove it from LEGACY_SENTINEL_COLLAPSE_ALLOWLIST")
    assert "('app.mod.C._config', 'empty')" in found[1][3]


def test_every_entry_stale_when_no_site_sets_a_flag() -> None:
    found = ll002({}, pair("a.b", "none"), repr("a.c"))
    assert where(found) == [(CONSTANT_PATH, FIRST_ENTRY_LINE, 10),
                            (CONSTANT_PATH, FIRST_ENTRY_LINE + 1, 9)]
    assert "stale entry: no site sets 'a.c' any more" in found[1][3]


def test_bare_site_entry_that_is_only_half_used_is_narrowed() -> None:
    body = "class C(Params):\n    _config = ModelConfig(none_as_sentinel=True)\n"
    found = ll002({"app/__init__.py": "", "app/mod.py": HEADER + body}, repr("app.mod.C._config"))
    assert where(found) == [(CONSTANT_PATH, FIRST_ENTRY_LINE, 9)]
    assert found[0][3] == ("entry 'app.mod.C._config' allows every axis, but its site sets only "
                           "'none'; narrow it to ('app.mod.C._config', 'none')")


def test_duplicate_entry() -> None:
    body = "class C(Params):\n    _config = ModelConfig(True, True)\n"
    found = ll002({"app/__init__.py": "", "app/mod.py": HEADER + body}, repr("app.mod.C._config"),
                  pair("app.mod.C._config", "empty"))
    assert where(found) == [(CONSTANT_PATH, FIRST_ENTRY_LINE + 1, 10)]
    assert found[0][3] == ("duplicate entry: ('app.mod.C._config', 'empty') is already allowed "
                           f"on line {FIRST_ENTRY_LINE}")


# --- 3. the gateway's site= --------------------------------------------------------------------

GATEWAY = "from lionagi.ln.types._sentinel import _compat_is_sentinel, _compat_not_sentinel\n"


def test_site_missing() -> None:
    body = GATEWAY + "def f(v):\n    return _compat_is_sentinel(v, none_as_sentinel=True)\n"
    diagnostics = run({"app/__init__.py": "", "app/mod.py": body}, pair("app.mod.f", "none"))
    assert [(d.location.line, d.location.column, d.message) for d in diagnostics] == [
        (3, 12, "_compat_is_sentinel(...) has no site= keyword; pass its lexical owner, "
                "site='app.mod.f'")]
    (edit,) = diagnostics[0].fix.edits
    assert (edit.line, edit.column, edit.replacement) == (3, 56, ", site='app.mod.f'")


def test_site_not_a_string_literal() -> None:
    body = GATEWAY + "SITE = 'app.mod.f'\ndef f(v):\n    return _compat_is_sentinel(v, site=SITE)\n"
    found = ll002({"app/__init__.py": "", "app/mod.py": body})
    assert where(found) == [("app/mod.py", 4, 40)]
    assert found[0][3] == ("site= of _compat_is_sentinel(...) must be a string literal naming its "
                           "lexical owner, 'app.mod.f'")


def test_site_not_equal_to_its_owner_shows_both_and_is_fixable() -> None:
    body = GATEWAY + ("class C:\n    def m(self, v):\n"
                      "        return _compat_not_sentinel(v, site=\"app.mod.C.n\")\n")
    diagnostics = run({"app/__init__.py": "", "app/mod.py": body})
    assert [(d.location.line, d.location.column, d.message) for d in diagnostics] == [
        (4, 45, "site='app.mod.C.n' does not match its lexical owner 'app.mod.C.m'")]
    (edit,) = diagnostics[0].fix.edits
    assert (edit.line, edit.column, edit.end_column, edit.replacement) == (4, 45, 58, '"app.mod.C.m"')


QUALNAME_CASES = {
    "module level": ("X = _compat_is_sentinel(1, site=S, none_as_sentinel=True)\n", "app.mod"),
    "method": ("class C:\n    def m(self):\n        return _compat_is_sentinel(1, site=S, "
               "none_as_sentinel=True)\n", "app.mod.C.m"),
    "nested classes": ("class A:\n    class B:\n        def m(self):\n            return "
                       "_compat_is_sentinel(1, site=S, none_as_sentinel=True)\n", "app.mod.A.B.m"),
    "nested function": ("def f():\n    def g():\n        return _compat_is_sentinel(1, site=S, "
                        "none_as_sentinel=True)\n    return g\n", "app.mod.f.g"),
    "class in a function": ("def f():\n    class C:\n        def m(self):\n            return "
                            "_compat_is_sentinel(1, site=S, none_as_sentinel=True)\n    return C\n",
                            "app.mod.f.C.m"),
    "lambda is transparent": ("def f():\n    return lambda v: _compat_is_sentinel(v, site=S, "
                              "none_as_sentinel=True)\n", "app.mod.f"),
    "comprehension is transparent": ("def f(xs):\n    return [x for x in xs if "
                                     "_compat_is_sentinel(x, site=S, none_as_sentinel=True)]\n",
                                     "app.mod.f"),
    "class body": ("class C:\n    K = _compat_is_sentinel(1, site=S, none_as_sentinel=True)\n",
                   "app.mod.C"),
    "package __init__": ("X = _compat_is_sentinel(1, site=S, none_as_sentinel=True)\n", "app"),
}


@pytest.mark.parametrize("case", QUALNAME_CASES.values(), ids=QUALNAME_CASES.keys())
def test_lexical_owner_of_a_gateway_call(case: tuple[str, str]) -> None:
    body, owner = case
    path = "app/__init__.py" if owner == "app" else "app/mod.py"
    files = {"app/__init__.py": "", path: GATEWAY + body.replace("site=S", f"site={owner!r}")}
    assert ll002(files, pair(owner, "none")) == []
    files[path] = GATEWAY + body.replace("site=S", "site='app.elsewhere'")
    found = ll002(files, pair(owner, "none"))
    assert [m for *_, m in found] == [
        f"site='app.elsewhere' does not match its lexical owner {owner!r}"]


def test_class_config_site_keeps_locals_as_python_qualname_does() -> None:
    body = HEADER + "def f():\n    class C(Params):\n        _config = ModelConfig(True)\n    return C\n"
    files = {"app/__init__.py": "", "app/mod.py": body}
    assert ll002(files, pair("app.mod.f.<locals>.C._config", "none")) == []
    assert "'app.mod.f.<locals>.C._config' sets" in ll002(files)[0][3]


# --- 4. computed flags, **kwargs and the public helpers ----------------------------------------

COMPUTED_CASES = {
    "config constructor": (
        "def f(flag):\n    return ModelConfig(none_as_sentinel=flag)\n", 6, 41,
        "none_as_sentinel is passed to ModelConfig(...) as a computed value"),
    "class-body config": (
        "FLAG = True\nclass C(Params):\n    _config = ModelConfig(empty_as_sentinel=FLAG)\n", 7, 45,
        "empty_as_sentinel is passed to ModelConfig(...) as a computed value"),
    "gateway": (
        "def f(v, flag):\n    return _compat_is_sentinel(v, site='app.mod.f', "
        "none_as_sentinel=flag)\n", 6, 70,
        "none_as_sentinel is passed to _compat_is_sentinel(...) as a computed value"),
    "replace": (
        "import dataclasses\ndef f(cfg, flag):\n    return dataclasses.replace(cfg, "
        "none_as_sentinel=not flag)\n", 7, 54,
        "none_as_sentinel is passed to dataclasses.replace(...) as a computed value"),
    "config **kwargs": (
        "def f(**options):\n    return ModelConfig(**options)\n", 6, 26,
        "**kwargs passed to ModelConfig(...) may carry a legacy flag"),
    "config *args": (
        "def f(*flags):\n    return ModelConfig(*flags)\n", 6, 25,
        "*args passed to ModelConfig(...) may carry a legacy flag"),
    "gateway **kwargs": (
        "def f(v, **kw):\n    return _compat_is_sentinel(v, site='app.mod.f', **kw)\n", 6, 55,
        "**kwargs passed to _compat_is_sentinel(...)"),
    "replace **kwargs on a config": (
        "import copy\nclass C(Params):\n    def f(self, **kw):\n"
        "        return copy.replace(self._config, **kw)\n", 8, 45,
        "**kwargs passed to copy.replace(...)"),
    "helper by keyword": (
        "def f(v):\n    return is_sentinel(v, none_as_sentinel=True)\n", 6, 44,
        "is_sentinel(...) implements identity semantics only and takes no legacy flag, but "
        "none_as_sentinel is passed by keyword"),
    "helper positionally": (
        "def f(v):\n    return not_sentinel(v, True)\n", 6, 28,
        "but none_as_sentinel is passed positionally"),
    "helper second position": (
        "def f(v, flag):\n    return not_sentinel(v, False, flag)\n", 6, 35,
        "but empty_as_sentinel is passed positionally"),
    "helper through partial": (
        "import functools\nCHECK = functools.partial(not_sentinel, empty_as_sentinel=True)\n", 6, 59,
        "but empty_as_sentinel is passed by keyword through functools.partial"),
    "helper through renamed partial": (
        "from functools import partial as bind\nCHECK = bind(is_sentinel, none_as_sentinel=1)\n",
        6, 44, "through functools.partial"),
    "helper **kwargs": (
        "def f(v, **kw):\n    return not_sentinel(v, **kw)\n", 6, 30,
        "**kwargs passed to not_sentinel(...)"),
}
HEADER4 = ("from lionagi.ln import ModelConfig, Params, is_sentinel, not_sentinel\n"
           "from lionagi.ln.types._sentinel import _compat_is_sentinel\n")


@pytest.mark.parametrize("case", COMPUTED_CASES.values(), ids=COMPUTED_CASES.keys())
def test_flags_the_inventory_cannot_count(case: tuple[str, int, int, str]) -> None:
    body, line, column, message = case
    found = ll002({"app/__init__.py": "", "app/mod.py": HEADER4 + "\n\n" + body})
    assert where(found) == [("app/mod.py", line, column)], found
    assert message in found[0][3]


def test_helper_with_false_flag_and_replace_of_unrelated_kwargs_are_fine() -> None:
    body = HEADER4 + ("import dataclasses\n"
                      "def f(v, point, **changes):\n"
                      "    dataclasses.replace(point, **changes)\n"
                      "    return not_sentinel(v, False) and is_sentinel(v, empty_as_sentinel=False)\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": body}) == []


def test_flag_named_keyword_of_an_unrelated_function_is_not_a_site() -> None:
    body = ("def strip(obj, none_as_sentinel=False, empty_as_sentinel=False):\n"
            "    return obj\n\n"
            "def to_dict(obj, exclude_none):\n"
            "    return strip(obj, none_as_sentinel=exclude_none, empty_as_sentinel=True)\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": body}) == []


def test_dynamic_site_may_compute_flags_and_they_count_as_set() -> None:
    body = GATEWAY + ("def strip(v, none_as_sentinel=False):\n"
                      "    return _compat_is_sentinel(v, site='app.mod.strip', "
                      "none_as_sentinel=none_as_sentinel)\n")
    files = {"app/__init__.py": "", "app/mod.py": body}
    dynamic = ["app.mod.strip"]
    assert ll002(files, pair("app.mod.strip", "none"), dynamic_sites=dynamic) == []
    found = ll002(files, dynamic_sites=dynamic)
    assert where(found) == [("app/mod.py", 3, 74)]
    assert "('app.mod.strip', 'none') is not in" in found[0][3]
    computed = ll002(files, pair("app.mod.strip", "none"))  # not declared dynamic
    assert [m.split(";")[0] for *_, m in computed] == [
        "none_as_sentinel is passed to _compat_is_sentinel(...) as a computed value",
        "stale entry: no site sets ('app.mod.strip', 'none') any more"]


def test_mechanism_modules_forward_flags_but_a_literal_there_is_a_site() -> None:
    files = mechanism(pair("lionagi.ln.types.base.Strict._config", "none"))
    files["lionagi/ln/types/base.py"] += (
        "\n\nclass Strict(Params):\n    _config = ModelConfig(none_as_sentinel=True)\n")
    assert lint_sources(files, [SentinelInventory]) == []
    files[CONSTANT_PATH] = SENTINEL % ""
    found = lint_sources(files, [SentinelInventory])
    assert [(d.path, d.location.line) for d in found] == [("lionagi/ln/types/base.py", 26)]
    assert "'lionagi.ln.types.base.Strict._config' sets none_as_sentinel" in found[0].message


# --- 5. flags set anywhere else -----------------------------------------------------------------

ELSEWHERE_CASES = {
    "config in a function": (
        "def f():\n    return ModelConfig(none_as_sentinel=True)\n", [(5, 41)],
        "ModelConfig(...) sets none_as_sentinel outside a class-body _config = ModelConfig(...)"),
    "config bound at module level": (
        "CFG = ModelConfig(empty_as_sentinel=True)\nclass C(Params):\n    _config = CFG\n",
        [(4, 37)], "ModelConfig(...) sets empty_as_sentinel outside a class-body _config"),
    "config through partial": (
        "import functools\nLEGACY = functools.partial(ModelConfig, none_as_sentinel=True)\n",
        [(5, 58)], "ModelConfig(...) through functools.partial sets none_as_sentinel"),
    "dataclasses.replace": (
        "from dataclasses import replace\ndef f(cfg):\n    return replace(cfg, none_as_sentinel=True)\n",
        [(6, 42)], "replace(...) sets none_as_sentinel on a copy of a config"),
    "copy.replace": (
        "import copy\ndef f(cfg):\n    return copy.replace(cfg, empty_as_sentinel=True)\n",
        [(6, 48)], "copy.replace(...) sets empty_as_sentinel on a copy of a config"),
    "object.__setattr__": (
        "def f(cfg):\n    object.__setattr__(cfg, 'none_as_sentinel', True)\n", [(5, 5)],
        "sets none_as_sentinel reflectively"),
    "setattr": (
        "def f(cfg, on):\n    setattr(cfg, 'empty_as_sentinel', on)\n", [(5, 5)],
        "sets empty_as_sentinel reflectively"),
    "attribute store": (
        "def f(cfg):\n    cfg.none_as_sentinel = True\n", [(5, 5)],
        "assigns none_as_sentinel on an object"),
    "class config assigned outside its body": (
        "class C(Params):\n    pass\n\nC._config = ModelConfig(none_as_sentinel=True)\n",
        [(7, 1)], "assigns C._config outside the body of C"),
    "class config assigned in a classmethod": (
        "class C(Params):\n    @classmethod\n    def legacy(cls):\n"
        "        cls._config = ModelConfig()\n", [(7, 9)], "assigns C._config outside the body of C"),
    "class config assigned by setattr": (
        "class C(Params):\n    pass\n\nsetattr(C, '_config', ModelConfig(True))\n",
        [(7, 1)], "assigns C._config outside the body of C"),
    "class config of an imported class": (
        "from lionagi.ln.types.base import Params as P\nP._config = ModelConfig()\n",
        [(5, 1)], "assigns Params._config outside the body of Params"),
}
HEADER5 = "from lionagi.ln.types import ModelConfig, Params\n\n\n"


@pytest.mark.parametrize("case", ELSEWHERE_CASES.values(), ids=ELSEWHERE_CASES.keys())
def test_flag_set_anywhere_else(case: tuple[str, list[tuple[int, int]], str]) -> None:
    body, places, message = case
    found = ll002({"app/__init__.py": "", "app/mod.py": HEADER5 + body})
    assert [(line, column) for _, line, column, _ in found] == places, found
    assert message in found[0][3]


def test_unrelated_config_attributes_and_false_flags_are_fine() -> None:
    body = HEADER5 + ("class Logger:\n"
                      "    def __init__(self, _config=None):\n"
                      "        self._config = _config\n\n"
                      "def f(cfg, obj):\n"
                      "    setattr(cfg, 'none_as_sentinel', False)\n"
                      "    obj.none_as_sentinel = obj.flag\n"
                      "    return ModelConfig(strict=True)\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": body}) == []


# --- 6. the constant cannot be found or read -----------------------------------------------------


def test_missing_constant_module_is_one_report_at_the_first_site() -> None:
    files = {"app/__init__.py": "", "app/base.py": "class ModelConfig:\n    pass\n",
             "app/a.py": ("from app.base import ModelConfig\n\n"
                          "class A:\n    _config = ModelConfig(none_as_sentinel=True)\n"),
             "app/b.py": ("from app.base import ModelConfig\n\n"
                          "class B:\n    _config = ModelConfig(True, True)\n")}
    found = [(d.path, d.location.line, d.message) for d in lint_sources(
        files, [SentinelInventory], options={"config-classes": ["app.base.ModelConfig"]})]
    assert found == [("app/a.py", 4, (
        "none_as_sentinel is set here, but the inventory constant "
        "lionagi.ln.types._sentinel.LEGACY_SENTINEL_COLLAPSE_ALLOWLIST cannot be found (no "
        "module of lionagi.ln.types._sentinel.LEGACY_SENTINEL_COLLAPSE_ALLOWLIST is in the "
        "project), so no site can be checked; define it as a literal frozenset of (site, axis) "
        "pairs or configure sentinel-inventory.constant"))]


def test_missing_constant_name() -> None:
    files = mechanism()
    files[CONSTANT_PATH] = files[CONSTANT_PATH].replace(
        "LEGACY_SENTINEL_COLLAPSE_ALLOWLIST:", "RENAMED:")
    files["app/__init__.py"] = ""
    files["app/mod.py"] = HEADER5 + "class C(Params):\n    _config = ModelConfig(True)\n"
    found = lint_sources(files, [SentinelInventory])
    assert [(d.path, d.location.line) for d in found] == [("app/mod.py", 5)]
    assert ("(lionagi.ln.types._sentinel binds no LEGACY_SENTINEL_COLLAPSE_ALLOWLIST at module "
            "level)") in found[0].message


UNREADABLE_CASES = {
    "computed": ("frozenset(_load())", "its value is not a set, tuple or list literal"),
    "frozenset of a name": ("frozenset(ENTRIES)", "its value is not a set, tuple or list literal"),
    "entry not a pair": ("frozenset({('a.b', 'none', 'x')})",
                         "the entry on line 3 is not a site string or a (site, axis) pair of "
                         "string literals"),
    "entry not literal": ("frozenset({(SITE, 'none')})",
                          "the entry on line 3 is not a site string or a (site, axis) pair of "
                          "string literals"),
    "unknown axis": ("frozenset({('a.b', 'nil')})",
                     "the entry on line 3 has axis 'nil', not one of 'none', 'empty'"),
    "dict": ("{'a.b': 'none'}", "its value is not a set, tuple or list literal"),
}


@pytest.mark.parametrize("case", UNREADABLE_CASES.values(), ids=UNREADABLE_CASES.keys())
def test_unreadable_constant_is_one_report_at_the_constant(case: tuple[str, str]) -> None:
    value, problem = case
    files = mechanism()
    files[CONSTANT_PATH] = ("SITE = 'a.b'\nENTRIES = {('a.b', 'none')}\n"
                            f"LEGACY_SENTINEL_COLLAPSE_ALLOWLIST = {value}\n")
    files["app/__init__.py"] = ""
    files["app/mod.py"] = HEADER5 + ("class C(Params):\n    _config = ModelConfig(True)\n"
                                     "class D(Params):\n    _config = ModelConfig(True)\n")
    found = lint_sources(files, [SentinelInventory])
    assert [(d.path, d.location.line, d.location.column) for d in found] == [(CONSTANT_PATH, 3, 1)]
    assert found[0].message == (
        f"LEGACY_SENTINEL_COLLAPSE_ALLOWLIST is not a literal LL002 can read ({problem}); write "
        "it as a frozenset of (site, axis) string pairs or bare site strings")


# --- each spelling of the constant ----------------------------------------------------------------

SPELLINGS = {
    "frozenset of a set of pairs": "X: Final[frozenset[tuple[str, str]]] = frozenset({%s})",
    "frozenset of a list": "X = frozenset([%s])",
    "frozenset of a tuple": "X = frozenset((%s,))",
    "set literal": "X = {%s}",
    "tuple literal annotated Final": "X: Final = (%s,)",
    "list literal": "X: list[tuple[str, str]] = [%s]",
}


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=SPELLINGS.keys())
@pytest.mark.parametrize("entries", [
    "('app.mod.C._config', 'none'), ('app.mod.C._config', 'empty'), ('app.mod.f', 'none')",
    "'app.mod.C._config', ('app.mod.f', 'none')",
    "['app.mod.C._config', 'none'], ['app.mod.C._config', 'empty'], ['app.mod.f', 'none']",
], ids=["pairs", "bare site string", "list pairs"])
def test_constant_spellings(spelling: str, entries: str) -> None:
    files = {
        CONSTANT_PATH: "from typing import Final\n\n" + spelling.replace("X", "LEGACY_SENTINEL_"
                       "COLLAPSE_ALLOWLIST", 1) % entries + "\n\n" + SENTINEL.split(")\n\n\n", 1)[1],
        "app/__init__.py": "",
        "app/mod.py": HEADER4 + (
            "class C(Params):\n    _config = ModelConfig(none_as_sentinel=True, empty_as_sentinel=1)\n"
            "def f(v):\n    return _compat_is_sentinel(v, site='app.mod.f', none_as_sentinel=True)\n"),
    }
    assert ll002(files) == []
    files["app/mod.py"] = files["app/mod.py"].replace("empty_as_sentinel=1", "strict=True")
    found = ll002(files)
    assert len(found) == 1 and found[0][0] == CONSTANT_PATH
    assert "'app.mod.C._config'" in found[0][3]


def test_empty_frozenset_constant_with_no_sites_is_clean() -> None:
    files = mechanism()
    files[CONSTANT_PATH] = SENTINEL.replace("frozenset(\n    {\n%s\n    }\n)", "frozenset()")
    assert lint_sources(files, [SentinelInventory]) == []


def test_constant_reached_through_a_re_export() -> None:
    files = mechanism()
    files["lionagi/ln/types/_sentinel.py"] = "from ._inventory import LEGACY_SENTINEL_COLLAPSE_ALLOWLIST\n" + \
        SENTINEL.split(")\n\n\n", 1)[1]
    files["lionagi/ln/types/_inventory.py"] = (
        "LEGACY_SENTINEL_COLLAPSE_ALLOWLIST = frozenset({('gone.site', 'none')})\n")
    found = lint_sources(files, [SentinelInventory])
    assert [(d.path, d.location.line) for d in found] == [("lionagi/ln/types/_inventory.py", 1)]
    assert "stale entry" in found[0].message


# --- names resolve through imports, aliases and re-exports ------------------------------------

RESOLUTION_CASES = {
    "renamed import": {"app/mod.py": (
        "from lionagi.ln.types import ModelConfig as MC\n\nclass C:\n    _config = MC(True)\n")},
    "package re-export two levels up": {"app/mod.py": (
        "from lionagi.ln import ModelConfig\n\nclass C:\n    _config = ModelConfig(True)\n")},
    "module attribute": {"app/mod.py": (
        "import lionagi.ln.types.base as b\n\nclass C:\n    _config = b.ModelConfig(True)\n")},
    "dotted module path": {"app/mod.py": (
        "import lionagi.ln\n\nclass C:\n    _config = lionagi.ln.ModelConfig(True)\n")},
    "renamed re-export used from another module": {
        "app/compat.py": "from lionagi.ln.types.base import ModelConfig as LegacyConfig\n",
        "app/mod.py": ("from app.compat import LegacyConfig\n\n"
                       "class C:\n    _config = LegacyConfig(True)\n")},
    "module-level alias in another module": {
        "app/compat.py": "from lionagi.ln.types import ModelConfig\nCfg = ModelConfig\n",
        "app/mod.py": "from app import compat\n\nclass C:\n    _config = compat.Cfg(True)\n"},
    "subclass of the config class": {
        "app/compat.py": ("from lionagi.ln.types import ModelConfig\n\n"
                          "class AppConfig(ModelConfig):\n    pass\n"),
        "app/mod.py": "from .compat import AppConfig\n\nclass C:\n    _config = AppConfig(True)\n"},
}


@pytest.mark.parametrize("files", RESOLUTION_CASES.values(), ids=RESOLUTION_CASES.keys())
def test_config_class_resolution(files: dict[str, str]) -> None:
    project = {"app/__init__.py": "", **files}
    found = ll002(project)
    assert where(found) == [("app/mod.py", 4, found[0][2])], found
    assert "'app.mod.C._config' sets none_as_sentinel" in found[0][3]


def test_relative_import_reaches_the_mechanism() -> None:
    files = {"lionagi/models/__init__.py": "",
             "lionagi/models/note.py": (
                 "from ..ln.types._sentinel import _compat_not_sentinel as keep\n\n"
                 "def f(v):\n    return keep(v, site='lionagi.models.note.g', empty_as_sentinel=True)\n")}
    found = ll002(files)
    assert [m.split(";")[0] for *_, m in found] == [
        "site='lionagi.models.note.g' does not match its lexical owner 'lionagi.models.note.f'",
        "'lionagi.models.note.f' sets empty_as_sentinel (axis 'empty'), but "
        "('lionagi.models.note.f', 'empty') is not in LEGACY_SENTINEL_COLLAPSE_ALLOWLIST "
        f"({CONSTANT_PATH}:3)"]


def test_shadowing_a_protected_name_is_no_way_around_the_rule() -> None:
    body = ("from lionagi.ln.types import base\n"
            "from lionagi.ln.types._sentinel import _compat_is_sentinel as is_sentinel\n\n"
            "def ModelConfig(**options):\n"
            "    return base.ModelConfig(**options)\n\n"
            "def f(v):\n"
            "    not_sentinel = base.ModelConfig\n"
            "    return is_sentinel(v, site='x', none_as_sentinel=True), "
            "not_sentinel(empty_as_sentinel=True)\n")
    found = ll002({"app/__init__.py": "", "app/mod.py": body})
    assert [(line, column, m.split(";")[0].split(",")[0]) for _, line, column, m in found] == [
        (5, 31, "**kwargs passed to ModelConfig(...) may carry a legacy flag the inventory cannot see"),
        (9, 32, "site='x' does not match its lexical owner 'app.mod.f'"),
        (9, 54, "'app.mod.f' sets none_as_sentinel (axis 'none')"),
        (9, 92, "ModelConfig(...) sets empty_as_sentinel outside a class-body _config = "
                "ModelConfig(...)")]


def test_a_local_function_named_like_a_helper_is_not_the_helper() -> None:
    body = ("def not_sentinel(value, none_as_sentinel=False):\n    return value\n\n"
            "def setattr(obj, name, value):\n    return None\n\n"
            "X = not_sentinel(1, none_as_sentinel=True)\n"
            "setattr(X, 'none_as_sentinel', True)\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": body}) == []


def test_every_name_is_configurable() -> None:
    files = {
        "core/__init__.py": "",
        "core/flags.py": (
            "ALLOWED = frozenset({('app.mod.C.settings', 'null')})\n\n"
            "class Settings:\n    def __init__(self, null_is_missing=False, blank_is_missing=False):\n"
            "        pass\n\n"
            "def _checked(value, *, owner, null_is_missing=False):\n    return value\n"),
        "app/__init__.py": "",
        "app/mod.py": ("from core.flags import Settings, _checked\n\n"
                       "class C:\n    settings = Settings(null_is_missing=True)\n\n"
                       "class D:\n    settings = Settings(False, True)\n\n"
                       "def f(v):\n    return _checked(v, owner='app.mod.g', null_is_missing=True)\n"),
    }
    options = {"constant": "core.flags.ALLOWED", "config-classes": ["core.flags.Settings"],
               "config-attribute": "settings", "gateways": ["core.flags._checked"],
               "site-keyword": "owner", "public-helpers": [], "mechanism-modules": ["core.flags"],
               "dynamic-sites": [],
               "flags": {"null_is_missing": "null", "blank_is_missing": "blank"}}
    found = [(d.location.line, d.message.split(";")[0]) for d in lint_sources(
        files, [SentinelInventory], options=options)]
    assert found == [
        (7, "'app.mod.D.settings' sets blank_is_missing (axis 'blank'), but "
            "('app.mod.D.settings', 'blank') is not in ALLOWED (core/flags.py:1)"),
        (10, "owner='app.mod.g' does not match its lexical owner 'app.mod.f'"),
        (10, "'app.mod.f' sets null_is_missing (axis 'null'), but ('app.mod.f', 'null') is not "
             "in ALLOWED (core/flags.py:1)")]


def test_suppression_with_reason_waives_a_site() -> None:
    body = HEADER5 + ("class C(Params):\n"
                      "    # lion-lint: ignore[LL002] -- migrating off in #123\n"
                      "    _config = ModelConfig(none_as_sentinel=True)\n")
    assert ll002({"app/__init__.py": "", "app/mod.py": body}) == []


# --- the command line and the examples -------------------------------------------------------------


def lion_lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lintkit", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120)


def test_explain_tells_how_to_add_a_site() -> None:
    result = lion_lint("explain", "LL002")
    assert result.returncode == 0
    assert result.stdout.startswith("# LL002 sentinel-inventory\n")
    for text in ("## What it does", "## Why it matters", "## Example", "## How to fix",
                 "LEGACY_SENTINEL_COLLAPSE_ALLOWLIST", "contract change", "lexical owner"):
        assert text in result.stdout
    assert lion_lint("explain", "sentinel-inventory").stdout == result.stdout


def test_lionish_example_fires_and_clean_example_passes() -> None:
    lionish = lion_lint("examples/lionish", "--select", "LL002", "--output-format", "concise")
    assert lionish.returncode == 1, lionish.stderr
    lines = lionish.stdout.splitlines()
    assert lines and all(" LL002 " in line for line in lines)
    assert any("stale entry" in line for line in lines)
    assert any("is not in LEGACY_SENTINEL_COLLAPSE_ALLOWLIST" in line for line in lines)
    clean = lion_lint("examples/clean")
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_readme_table_shows_the_defaults() -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    header = "[tool.lion-lint.sentinel-inventory]\n"
    block = readme[readme.index(header):].split("```", 1)[0]
    table = tomllib.loads(block)["tool"]["lion-lint"]["sentinel-inventory"]
    options = SentinelInventory.Options.model_validate(table)
    assert options == SentinelInventory.Options()
    assert set(table) == {name.replace("_", "-") for name in SentinelInventory.Options.model_fields}


def test_fix_rewrites_a_wrong_or_missing_site(tmp_path: Path) -> None:
    from lintkit.testing import write_project

    module = ("from lionagi.ln.types._sentinel import _compat_is_sentinel\n\n"
              "class C:\n"
              "    def m(self, v):\n"
              "        return _compat_is_sentinel(v, site='app.mod.C.old', none_as_sentinel=True)\n\n"
              "def f(v):\n"
              "    return _compat_is_sentinel(v, empty_as_sentinel=True)\n")
    write_project(tmp_path, {"pyproject.toml": "[tool.lion-lint]\n", "app/__init__.py": "",
                             "app/mod.py": module,
                             **mechanism(pair("app.mod.C.m", "none"), pair("app.mod.f", "empty"))})
    result = subprocess.run([sys.executable, "-m", "lintkit", ".", "--select", "LL002", "--fix"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    fixed = (tmp_path / "app/mod.py").read_text(encoding="utf-8")
    assert fixed == module.replace("'app.mod.C.old'", "'app.mod.C.m'").replace(
        "empty_as_sentinel=True)\n", "empty_as_sentinel=True, site='app.mod.f')\n")


def test_test_files_exercise_the_runtime_gate_and_are_left_out() -> None:
    test = HEADER5 + ("def test_rejected():\n"
                      "    class Unlisted(Params):\n        _config = ModelConfig(True)\n"
                      "    Unlisted._config = ModelConfig(empty_as_sentinel=True)\n")
    files = {"app/__init__.py": "", "tests/test_gate.py": test, "app/test_local.py": test,
             "tests/conftest.py": test}
    assert ll002(files) == []
    found = ll002(files, test_files=[])
    assert {path for path, *_ in found} == {"tests/test_gate.py", "app/test_local.py",
                                            "tests/conftest.py"}
