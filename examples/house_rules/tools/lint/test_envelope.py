"""Tests of ADR0001 element-init-forwards-kwargs: its examples, and the cases they cannot say."""

from __future__ import annotations

from lintkit.testing import lint_sources, rule_tests

from tools.lint.envelope import ElementInitForwardsKwargs

test_element_init_forwards_kwargs = rule_tests(ElementInitForwardsKwargs)

ELEMENT = (
    "from pydantic import BaseModel\n\n"
    "class Element(BaseModel):\n"
    "    id: str = ''\n"
    "    metadata: dict = {}\n"
)


def lint(body: str) -> list[int]:
    project = {"app/__init__.py": "", "app/element.py": ELEMENT,
               "app/models.py": "from .element import Element\n\n" + body}
    found = lint_sources(project, [ElementInitForwardsKwargs],
                         options={"bases": ["app.element.Element"]})
    return [d.location.line for d in found]


def test_ways_of_forwarding_pass() -> None:
    assert lint(
        "class A(Element):\n"
        "    def __init__(self, **kw):\n"
        "        Element.__init__(self, **{**kw, 'metadata': {}})\n\n"
        "class B(A):\n"
        "    def __init__(self, x=1, **kw):\n"
        "        super().__init__(**dict(kw, x=x))\n\n"
        "class C(Element):\n"
        "    def __init__(self, **kw):\n"
        "        if kw:\n"
        "            super().__init__(**kw)\n"
        "        else:\n"
        "            super().__init__()\n"
    ) == []


def test_an_init_without_kwargs_is_not_this_rules_business() -> None:
    assert lint("class A(Element):\n    def __init__(self, x):\n        super().__init__()\n") == []


def test_forwarding_only_inside_a_nested_function_does_not_count() -> None:
    assert lint(
        "class A(Element):\n"
        "    def __init__(self, **kw):\n"
        "        def later():\n"
        "            super(A, self).__init__(**kw)\n"
        "        self._later = later\n"
    ) == [4]


def test_calling_an_unrelated_init_does_not_count() -> None:
    assert lint(
        "class Other:\n    pass\n\n"
        "class A(Element):\n"
        "    def __init__(self, **kw):\n"
        "        Other.__init__(self, **kw)\n"
    ) == [7]


def test_related_locations_point_at_the_call_and_the_envelope() -> None:
    project = {"app/__init__.py": "", "app/element.py": ELEMENT, "app/models.py": (
        "from .element import Element\n\n"
        "class A(Element):\n"
        "    def __init__(self, **kw):\n"
        "        super().__init__(metadata=kw)\n")}
    (found,) = lint_sources(project, [ElementInitForwardsKwargs],
                            options={"bases": ["app.element.Element"]})
    assert "inherited Element fields (id, metadata)" in found.message
    assert [(r.location.path, r.location.line, r.message) for r in found.related] == [
        ("app/models.py", 5, "the parent initializer is called here without **kw"),
        ("app/element.py", 3, "Element defines the envelope here"),
    ]


def test_spreading_a_mapping_not_built_from_kwargs_does_not_count() -> None:
    assert lint(
        "DEFAULTS = {'metadata': {}}\n\n"
        "class A(Element):\n"
        "    def __init__(self, **kw):\n"
        "        super().__init__(**DEFAULTS, **dict(DEFAULTS))\n"
    ) == [6]


def test_bases_configured_through_a_re_export() -> None:
    project = {"app/__init__.py": "from .element import Element\n", "app/element.py": ELEMENT,
               "app/models.py": ("from app import Element\n\nclass A(Element):\n"
                                 "    def __init__(self, **kw):\n        super().__init__()\n")}
    found = lint_sources(project, [ElementInitForwardsKwargs], options={"bases": ["app.Element"]})
    assert [d.location.line for d in found] == [4]
