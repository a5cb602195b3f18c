"""Every shipped rule's valid/invalid examples (declared beside the rule) run as tests, with
the helper local rules use too; each rule's definition and docs are checked as well."""

from __future__ import annotations

from lintkit.cli.compose import shipped_rules
from lintkit.testing import rule_tests

test_shipped_rule = rule_tests(*shipped_rules())
