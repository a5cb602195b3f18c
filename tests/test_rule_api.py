"""The rule API as rule authors meet it: facts they read, helpers they call."""

from __future__ import annotations

from lintkit.core.facts import facts_from_data, facts_to_data
from lintkit.parsing.extract import extract


def test_a_union_annotation_keeps_both_operands() -> None:
    facts = extract("m.py", b"class A:\n    id: UUID | None = None\n", False)
    annotation = facts.bindings[0].annotation
    assert annotation is not None and annotation.kind == "union"
    assert [item.kind for item in annotation.items] == ["ref", "const"]
    assert annotation.items[0].ref == "UUID"
    assert annotation.span == (2, 9, 2, 20)
    decoded = facts_from_data(facts_to_data(facts))
    assert decoded.bindings[0].annotation == annotation
