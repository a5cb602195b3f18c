"""LL001 structural-eq: family resolution across modules and every reported form."""

from __future__ import annotations

import pytest

from lion_lint.rules.structural_eq import StructuralEq
from lintkit.testing import lint_sources

AUTHORITY = """\
from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Params:
    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return 0
"""
OPTIONS = {"authorities": ["pkg.base.Params"]}


def ll001(files: dict[str, str], **options: object) -> list[tuple[str, int, int, str]]:
    found = lint_sources({"pkg/__init__.py": "", "pkg/base.py": AUTHORITY, **files},
                         [StructuralEq], options={**OPTIONS, **options})
    return [(d.path, d.location.line, d.location.column, d.message) for d in found]


BAD_CHILD = """\
from dataclasses import dataclass
{imports}


@dataclass(frozen=True)
class Child({base}):
    x: int = 0
"""


def bad_child(imports: str, base: str) -> str:
    return BAD_CHILD.format(imports=imports, base=base)


# --- family resolution: each way a class can reach the authority -----------------------------

RESOLUTION_CASES = {
    "absolute import": {"pkg/child.py": bad_child("from pkg.base import Params", "Params")},
    "relative import": {"pkg/child.py": bad_child("from .base import Params", "Params")},
    "relative import two levels": {
        "pkg/sub/__init__.py": "",
        "pkg/sub/child.py": bad_child("from ..base import Params", "Params"),
    },
    "import as attribute base": {"pkg/child.py": bad_child("import pkg.base as b", "b.Params")},
    "dotted attribute base": {"pkg/child.py": bad_child("import pkg.base", "pkg.base.Params")},
    "from package import module": {"pkg/child.py": bad_child("from pkg import base", "base.Params")},
    "re-export through packages": {
        "pkg/__init__.py": "from pkg.api import Params\n",
        "pkg/api/__init__.py": "from pkg.api.inner import Params\n",
        "pkg/api/inner.py": "from ..base import Params as Params\n",
        "app/__init__.py": "",
        "app/child.py": bad_child("from pkg import Params", "Params"),
    },
    "renamed re-export": {
        "pkg/__init__.py": "from .base import Params as Base\n",
        "app/__init__.py": "",
        "app/child.py": bad_child("from pkg import Base", "Base"),
    },
    "module-level alias": {"pkg/child.py": bad_child(
        "from pkg.base import Params\nBase = Params", "Base")},
    "annotated chained alias": {"pkg/child.py": bad_child(
        "from typing import TypeAlias\nfrom pkg.base import Params\n"
        "A = Params\nB: TypeAlias = A", "B")},
    "alias in another module": {
        "pkg/aliases.py": "from pkg.base import Params\nBase = Params\n",
        "pkg/child.py": bad_child("from pkg.aliases import Base", "Base"),
    },
    "subscripted generic base": {"pkg/child.py": bad_child(
        "from typing import Generic, TypeVar\nfrom pkg.base import Params\nT = TypeVar('T')",
        "Params[T], Generic[T]")},
    "star import": {"pkg/child.py": bad_child("from pkg.base import *", "Params")},
    "star import honours __all__ of a re-exporting module": {
        "pkg/public.py": "from pkg.base import Params\n__all__ = ['Params']\n",
        "pkg/child.py": bad_child("from pkg.public import *", "Params"),
    },
    "try/except ImportError": {"pkg/child.py": bad_child(
        "try:\n    from pkg.base import Params\nexcept ImportError:\n    Params = object",
        "Params")},
    "else branch of TYPE_CHECKING": {"pkg/child.py": bad_child(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from typing import Any\n"
        "else:\n    from pkg.base import Params", "Params")},
    "lazy __getattr__ literal map": {
        "pkg/lazy/__init__.py": (
            "import importlib\n"
            "_LAZY = {'Params': ('pkg.base', 'Params')}\n"
            "def __getattr__(name):\n"
            "    module, attr = _LAZY[name]\n"
            "    return getattr(importlib.import_module(module), attr)\n"),
        "pkg/child.py": bad_child("from pkg.lazy import Params", "Params"),
    },
    "lazy __getattr__ if-branch": {
        "pkg/lazy/__init__.py": (
            "def __getattr__(name):\n"
            "    if name == 'Params':\n"
            "        from pkg.base import Params\n"
            "        return Params\n"
            "    raise AttributeError(name)\n"),
        "pkg/child.py": bad_child("from pkg.lazy import Params", "Params"),
    },
    "indirect subclass three modules away": {
        "pkg/a.py": ("from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
                     "@dataclass(frozen=True, eq=False)\nclass A(Params):\n    pass\n"),
        "pkg/b.py": ("from dataclasses import dataclass\nfrom pkg.a import A\n\n"
                     "@dataclass(frozen=True, eq=False)\nclass B(A):\n    pass\n"),
        "pkg/child.py": bad_child("from pkg.b import B", "B"),
    },
}


@pytest.mark.parametrize("files", RESOLUTION_CASES.values(), ids=RESOLUTION_CASES.keys())
def test_family_resolution(files: dict[str, str]) -> None:
    found = ll001(files)
    child_path = next(p for p in files if p.endswith("child.py"))
    class_line = files[child_path].splitlines().index(next(
        line for line in files[child_path].splitlines() if line.startswith("class Child"))) + 1
    assert [(p, line, col) for p, line, col, _ in found] == [(child_path, class_line, 7)], found
    assert "Child descends from Params" in found[0][3]
    assert "does not pass eq=False" in found[0][3]


def test_nested_class_in_function_and_class_uses_python_qualnames() -> None:
    source = (
        "from dataclasses import dataclass\n"
        "from pkg.base import Params\n\n"
        "class Outer:\n"
        "    @dataclass\n"
        "    class Inner(Params):\n"
        "        pass\n\n"
        "def factory():\n"
        "    from pkg.base import Params as P\n"
        "    @dataclass(eq=True)\n"
        "    class Local(P):\n"
        "        pass\n"
        "    return Local\n"
    )
    found = ll001({"pkg/child.py": source})
    assert [(line, msg.split(" descends")[0]) for _, line, _, msg in found] == [
        (6, "Outer.Inner"), (12, "factory.<locals>.Local")]


def test_chain_is_named_when_it_crosses_modules() -> None:
    files = {
        "pkg/ops/__init__.py": "",
        "pkg/ops/types.py": ("from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
                             "@dataclass(frozen=True, eq=False)\nclass MorphParam(Params):\n"
                             "    pass\n"),
        "app/__init__.py": "",
        "app/chat.py": bad_child("from pkg.ops.types import MorphParam", "MorphParam"),
    }
    diagnostics = lint_sources({"pkg/__init__.py": "", "pkg/base.py": AUTHORITY, **files},
                               [StructuralEq], options=OPTIONS)
    (diagnostic,) = diagnostics
    assert diagnostic.message == (
        "Child descends from Params (via MorphParam) but its @dataclass does not pass "
        "eq=False, so a generated __eq__ replaces the structural one")
    assert [(r.location.path, r.location.line) for r in diagnostic.related] == [
        ("pkg/ops/types.py", 5), ("pkg/base.py", 5)]


def test_unrelated_classes_and_unresolvable_bases_are_not_members() -> None:
    source = (
        "from dataclasses import dataclass\n"
        "from elsewhere import Params\n\n"  # an external Params is not the authority
        "@dataclass\nclass A(Params):\n    pass\n\n"
        "@dataclass\nclass B(Unknown):\n    pass\n\n"
        "class Params2:\n    pass\n\n"
        "@dataclass\nclass C(Params2):\n    def __eq__(self, o):\n        return True\n"
    )
    assert ll001({"pkg/child.py": source}) == []


def test_shadowed_local_name_is_not_the_authority() -> None:
    source = (
        "from dataclasses import dataclass\n"
        "from pkg.base import Params\n\n"
        "def build():\n"
        "    class Params:\n"
        "        pass\n"
        "    @dataclass\n"
        "    class Local(Params):\n"
        "        pass\n"
    )
    assert ll001({"pkg/child.py": source}) == []


def test_default_authorities_are_lionagis() -> None:
    files = {
        "lionagi/__init__.py": "",
        "lionagi/ln/__init__.py": "",
        "lionagi/ln/types/__init__.py": "from .base import Params, Meta\nfrom .spec import Spec\n",
        "lionagi/ln/types/base.py": AUTHORITY + "\n\n@dataclass(frozen=True, eq=False)\nclass Meta:\n    pass\n",
        "lionagi/ln/types/spec.py": AUTHORITY.replace("Params", "Spec"),
        "lionagi/ops.py": (
            "from dataclasses import dataclass\n"
            "from lionagi.ln.types import Meta, Params, Spec\n\n"
            "@dataclass\nclass P(Params):\n    pass\n\n"
            "@dataclass\nclass M(Meta):\n    pass\n\n"
            "@dataclass\nclass S(Spec):\n    pass\n"),
    }
    found = lint_sources(files, [StructuralEq])
    assert [(d.path, d.location.line) for d in found] == [
        ("lionagi/ops.py", 5), ("lionagi/ops.py", 9), ("lionagi/ops.py", 13)]


# --- the reported forms ----------------------------------------------------------------------

DECORATOR_CASES = {
    "bare @dataclass": ("@dataclass", "bare @dataclass does not pass eq=False"),
    "frozen=True, eq defaults to True": ("@dataclass(frozen=True)", "does not pass eq=False"),
    "eq=True": ("@dataclass(eq=True)", "passes eq=True"),
    "non-literal eq": ("@dataclass(eq=EQ)", "non-literal eq"),
    "**kwargs": ("@dataclass(**OPTS)", "takes **kwargs"),
    "unsafe_hash=True": ("@dataclass(eq=False, unsafe_hash=True)", "unsafe_hash=True"),
    "dataclasses.dataclass": ("@dataclasses.dataclass(frozen=True)", "does not pass eq=False"),
    "aliased decorator": ("@dc(frozen=True)", "does not pass eq=False"),
}


@pytest.mark.parametrize(("decorator", "message"), DECORATOR_CASES.values(), ids=DECORATOR_CASES.keys())
def test_decorator_forms(decorator: str, message: str) -> None:
    source = (
        "import dataclasses\n"
        "from dataclasses import dataclass, dataclass as dc\n"
        "from pkg.base import Params\n"
        "EQ = True\nOPTS = {}\n\n"
        f"{decorator}\n"
        "class Child(Params):\n"
        "    pass\n"
    )
    found = ll001({"pkg/child.py": source})
    assert len(found) == 1, found
    _, line, column, text = found[0]
    assert (line, column) == (8, 7)  # the class line, at the class name
    assert message in text


def test_eq_false_passes_and_unsafe_hash_false_passes() -> None:
    source = (
        "from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
        "@dataclass(frozen=True, eq=False, unsafe_hash=False)\nclass A(Params):\n    pass\n"
    )
    assert ll001({"pkg/child.py": source}) == []


def test_every_stacked_dataclass_decorator_is_checked() -> None:
    source = (
        "from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
        "@dataclass(eq=False)\n@dataclass(frozen=True)\nclass A(Params):\n    pass\n"
    )
    found = ll001({"pkg/child.py": source})
    assert [(line, col) for _, line, col, _ in found] == [(6, 7)]


BODY_CASES = {
    "def __eq__": ("    def __eq__(self, other):\n        return True\n", 6, "defines __eq__"),
    "async def __hash__": ("    async def __hash__(self):\n        return 1\n", 6, "defines __hash__"),
    "__hash__ = None": ("    __hash__ = None\n", 6, "__hash__ by assignment"),
    "tuple target": ("    __eq__, other = (lambda s, o: True), 1\n", 6, "__eq__ by assignment"),
    "inside if": ("    if True:\n        def __eq__(self, other):\n            return True\n", 7,
                  "defines __eq__"),
    "inside try": ("    try:\n        __hash__ = object.__hash__\n    except Exception:\n"
                   "        pass\n", 7, "__hash__ by assignment"),
}


@pytest.mark.parametrize(("body", "line", "message"), BODY_CASES.values(), ids=BODY_CASES.keys())
def test_eq_and_hash_definitions(body: str, line: int, message: str) -> None:
    source = ("from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
              "@dataclass(eq=False)\nclass A(Params):\n" + body)
    found = ll001({"pkg/child.py": source})
    assert [(f[1], message in f[3]) for f in found] == [(line, True)], found


def test_assigned_after_definition() -> None:
    source = (
        "from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
        "@dataclass(eq=False)\nclass A(Params):\n    pass\n\n"
        "A.__eq__ = lambda self, other: True\n"
        "setattr(A, '__hash__', None)\n"
        "setattr(A, 'other', None)\n"
    )
    found = ll001({"pkg/child.py": source})
    assert [(line, col) for _, line, col, _ in found] == [(8, 1), (9, 1)]
    assert "gets __eq__ assigned after its definition" in found[0][3]
    assert "gets __hash__ assigned" in found[1][3]


def test_override_reason_suppresses_and_is_listed() -> None:
    source = (
        "from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
        "@dataclass(eq=False)\nclass A(Params):\n"
        "    def __eq__(self, other):  # lion-lint: ignore[LL001] -- identity semantics, ADR-0001\n"
        "        return self is other\n"
        "    def __hash__(self):  # lion-lint: ignore[LL001]\n"
        "        return id(self)\n"
    )
    found = ll001({"pkg/child.py": source})
    # The reasonless waiver suppresses nothing and is itself reported (LL902).
    assert [(line, text.split(" ")[0]) for _, line, _, text in found] == [
        (8, "A"), (8, "suppression")]


def test_waiver_above_a_decorated_class_covers_the_header() -> None:
    source = (
        "from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
        "# lion-lint: ignore[LL001] -- generated eq is intended here, see ADR-0119 D4 review\n"
        "@dataclass(frozen=True)\nclass A(Params):\n    pass\n"
    )
    assert ll001({"pkg/child.py": source}) == []


def test_dynamic_creation() -> None:
    source = (
        "import dataclasses\nfrom dataclasses import make_dataclass\nfrom pkg.base import Params\n\n"
        "A = make_dataclass('A', [('x', int)], bases=(Params,))\n"
        "B = make_dataclass('B', [], bases=(Params,), eq=False)\n"
        "C = dataclasses.make_dataclass('C', [], bases=(Params,), eq=True)\n"
        "D = type('D', (Params,), {'x': 1})\n"
        "E = type('E', (Params,), {'__eq__': lambda s, o: True})\n"
        "F = type('F', (Params,), namespace)\n"
        "G = type('G', (object,), {})\n"
    )
    found = ll001({"pkg/child.py": source})
    assert [(line, col) for _, line, col, _ in found] == [(5, 5), (7, 5), (9, 5), (10, 5)]
    assert "created dynamically from Params" in found[0][3]


def test_dynamic_creation_with_positional_bases_or_an_alias() -> None:
    """Bases passed third and positionally, or through an alias of make_dataclass, count."""
    source = (
        "import dataclasses\nfrom dataclasses import make_dataclass as md\n"
        "from pkg.base import Params\n\n"
        "make = dataclasses.make_dataclass\n"
        "A = md('A', [], (Params,))\n"
        "B = make('B', [], bases=(Params,))\n"
        "C = make('C', [], (Params,), eq=False)\n"
        "D = md('D', [('x', int)])\n"
    )
    found = ll001({"pkg/child.py": source})
    assert [(line, col) for _, line, col, _ in found] == [(6, 5), (7, 5)]


def test_authority_must_pass_eq_false() -> None:
    bad_authority = AUTHORITY.replace("@dataclass(frozen=True, eq=False)", "@dataclass(frozen=True)")
    found = lint_sources({"pkg/__init__.py": "", "pkg/base.py": bad_authority}, [StructuralEq],
                         options=OPTIONS)
    assert [(d.location.line, d.message.split(" does")[0]) for d in found] == [
        (5, "authority Params: its @dataclass")]


def test_undecorated_subclass_inherits_unless_explicit_eq_false_required() -> None:
    files = {"pkg/child.py": "from pkg.base import Params\n\nclass A(Params):\n    pass\n"}
    assert ll001(files) == []
    found = ll001(files, **{"require-explicit-eq-false": True})
    assert [(line, col) for _, line, col, _ in found] == [(3, 7)]
    assert "require-explicit-eq-false" in found[0][3]


def test_fix_edits_make_the_decorator_pass_eq_false() -> None:
    source = (
        "from dataclasses import dataclass\nfrom pkg.base import Params\n\n"
        "@dataclass\nclass A(Params):\n    pass\n\n"
        "@dataclass(frozen=True)\nclass B(Params):\n    pass\n\n"
        "@dataclass(eq=True)\nclass C(Params):\n    pass\n\n"
        "@dataclass()\nclass D(Params):\n    pass\n"
    )
    found = lint_sources({"pkg/__init__.py": "", "pkg/base.py": AUTHORITY, "pkg/child.py": source},
                         [StructuralEq], options=OPTIONS)
    lines = source.splitlines()
    for diagnostic in found:
        assert diagnostic.fix is not None
        for edit in diagnostic.fix.edits:
            assert edit.line == edit.end_line
            text = lines[edit.line - 1]
            lines[edit.line - 1] = text[: edit.column - 1] + edit.replacement + text[edit.end_column - 1:]
    assert [line for line in lines if line.startswith("@")] == [
        "@dataclass(eq=False)", "@dataclass(frozen=True, eq=False)", "@dataclass(eq=False)",
        "@dataclass(eq=False)"]
