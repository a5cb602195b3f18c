"""Tests of ADR0021 uuid-identity-is-string: its examples, and the cases they cannot say."""

from __future__ import annotations

from lintkit.testing import lint_sources, rule_tests

from tools.lint.identity import UuidIdentityIsString

test_uuid_identity_is_string = rule_tests(UuidIdentityIsString)

ELEMENT = (
    "from uuid import uuid4\n"
    "from pydantic import BaseModel, Field\n\n"
    "class Element(BaseModel):\n"
    "    id: str = Field(default_factory=lambda: str(uuid4()))\n"
)
FAMILY = {"families": ["app.element.Element"]}


def lint(files: dict[str, str], **options: object) -> list:
    project = {"app/__init__.py": "", "app/element.py": ELEMENT, **files}
    return lint_sources(project, [UuidIdentityIsString], options={**FAMILY, **options})


def test_the_family_root_itself_is_checked() -> None:
    found = lint({"app/element.py": ELEMENT.replace(
        "lambda: str(uuid4())", "uuid4")})
    assert [(d.path, d.location.line) for d in found] == [("app/element.py", 5)]


def test_a_factory_renamed_on_import_and_a_nested_class() -> None:
    found = lint({"app/models.py": (
        "from uuid import uuid4 as make_id\n"
        "from pydantic import Field\n"
        "from app.element import Element\n\n"
        "def build():\n"
        "    class Local(Element):\n"
        "        id: str = Field(default_factory=make_id)\n"
        "    return Local\n"
    )})
    assert [(d.location.line, d.scope) for d in found] == [
        (7, "app.models.build.<locals>.Local.id")]
    assert found[0].fix is not None


def test_a_factory_two_project_functions_deep_is_followed_and_not_fixed() -> None:
    found = lint({
        "app/ids.py": ("import uuid\n\n"
                       "def raw():\n    return uuid.UUID(int=0)\n\n"
                       "def new():\n    return raw()\n\n"
                       "def loop():\n    return loop()\n"),
        "app/models.py": ("from pydantic import Field\n"
                          "from app.element import Element\n"
                          "from app.ids import new, loop\n\n"
                          "class A(Element):\n    id: str = Field(default_factory=new)\n\n"
                          "class B(Element):\n    id: str = Field(default_factory=loop)\n"),
    })
    assert [d.location.line for d in found] == [6]
    assert found[0].fix is None  # a project function may have other callers
    assert [(r.location.path, r.location.line, r.message) for r in found[0].related] == [
        ("app/element.py", 4, "Element is a base here"),
        ("app/ids.py", 7, "new returns a uuid.UUID here"),
    ]


def test_a_string_factory_and_other_fields_pass() -> None:
    assert lint({"app/models.py": (
        "import uuid\n"
        "from pydantic import Field\n"
        "from app.element import Element\n\n"
        "class A(Element):\n"
        "    id: str = Field(default_factory=lambda: str(uuid.uuid4()))\n"
        "    trace: uuid.UUID = Field(default_factory=uuid.uuid4)\n"
    )}) == []


def test_the_identity_fields_are_configurable() -> None:
    files = {"app/models.py": (
        "from uuid import UUID\n"
        "from app.element import Element\n\n"
        "class A(Element):\n    uid: UUID\n    id: UUID\n"
    )}
    assert [d.location.line for d in lint(files, fields=["uid"])] == [5]
    assert [d.location.line for d in lint(files)] == [6]


def test_no_fix_inside_annotated_or_where_str_is_shadowed() -> None:
    found = lint({"app/models.py": (
        "from typing import Annotated\n"
        "from uuid import UUID, uuid4\n"
        "from pydantic import Field\n"
        "from app.element import Element\n\n"
        "class A(Element):\n"
        "    id: Annotated[UUID, 'checked'] = Field(default_factory=uuid4)\n\n"
        "class B(Element):\n"
        "    str = bytes\n"
        "    id: UUID = Field(default_factory=uuid4)\n"
    )})
    assert [(d.location.line, d.fix) for d in found] == [(7, None), (11, None)]


def test_the_fix_keeps_the_union_and_the_other_arguments() -> None:
    found = lint({"app/models.py": (
        "import uuid\n"
        "from pydantic import Field\n"
        "from app.element import Element\n\n"
        "class A(Element):\n"
        "    id: uuid.UUID | None = Field(\n"
        "        default_factory=uuid.uuid4,\n"
        "        frozen=True,\n"
        "    )\n"
    )})
    (diagnostic,) = found
    assert diagnostic.fix is not None
    assert sorted((e.line, e.column, e.replacement) for e in diagnostic.fix.edits) == [
        (6, 9, "str"), (7, 25, "lambda: str(uuid.uuid4())")]


def test_no_fix_when_a_validator_or_serializer_handles_the_field() -> None:
    found = lint({"app/models.py": (
        "from uuid import UUID, uuid4\n"
        "from pydantic import Field, field_validator\n"
        "from app.element import Element\n\n"
        "class A(Element):\n"
        "    id: UUID = Field(default_factory=uuid4)\n\n"
        "    @field_validator('id', mode='before')\n"
        "    def _coerce(cls, value):\n"
        "        return UUID(str(value))\n\n"
        "class B(Element):\n"
        "    id: UUID = Field(default_factory=uuid4)\n\n"
        "    @field_validator('name')\n"
        "    def _other(cls, value):\n"
        "        return value\n"
    )})
    assert [(d.location.line, d.fix is None) for d in found] == [(6, True), (13, False)]


def test_a_family_configured_through_a_re_export() -> None:
    found = lint_sources(
        {"app/__init__.py": "from app.element import Element\n", "app/element.py": ELEMENT,
         "app/models.py": ("from uuid import UUID\nfrom app import Element\n\n"
                           "class A(Element):\n    id: UUID\n")},
        [UuidIdentityIsString], options={"families": ["app.Element"]})
    assert [(d.path, d.location.line) for d in found] == [("app/models.py", 5)]
