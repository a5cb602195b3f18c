"""Every shipped rule's valid/invalid examples (declared beside the rule) run as tests."""

from __future__ import annotations

import pytest

from lintkit.cli.compose import shipped_rules
from lintkit.core.rule import DOC_SECTIONS, Rule
from lintkit.testing import check_example, rule_example_params


@pytest.mark.parametrize(("rule", "example"), rule_example_params(*shipped_rules()))
def test_example(rule: type[Rule], example: object) -> None:
    check_example(rule, example)  # type: ignore[arg-type]


@pytest.mark.parametrize("rule", shipped_rules(), ids=lambda r: r.code)
def test_rule_is_documented_and_has_examples(rule: type[Rule]) -> None:
    docs = rule.docs()
    for section in DOC_SECTIONS:
        assert docs[section], f"{rule.code} docstring lacks '## {section}'"
    assert rule.valid and rule.invalid, f"{rule.code} needs valid and invalid examples"
