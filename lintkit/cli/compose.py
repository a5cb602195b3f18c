"""The composition root: the one place that says which rules lion-lint runs.

Rules are listed here explicitly; importing a rule module registers nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from lintkit.config.load import LoadedConfig
from lintkit.core.builtin import ENGINE_RULES
from lintkit.core.rule import Rule


def shipped_rules() -> tuple[type[Rule], ...]:
    from lion_lint.rules.import_boundary import ImportBoundary
    from lion_lint.rules.import_time_registration import ImportTimeRegistration
    from lion_lint.rules.layer_order import LayerOrder
    from lion_lint.rules.sentinel_inventory import SentinelInventory
    from lion_lint.rules.structural_eq import StructuralEq

    return (StructuralEq, SentinelInventory, ImportTimeRegistration, ImportBoundary, LayerOrder)


def compose(config: LoadedConfig) -> Sequence[type[Rule]]:
    """The rules available in a project: the shipped ones, then its configured plugins."""
    from lintkit.cli.plugins import load_plugins

    shipped = shipped_rules()
    return (*shipped, *load_plugins(config, taken=(*ENGINE_RULES, *shipped)))


def all_rules(config: LoadedConfig | None = None) -> tuple[type[Rule], ...]:
    """Every rule lion-lint knows (for `rules` and `explain`); given a project's
    configuration, its plugins too."""
    if config is not None:
        return (*ENGINE_RULES, *compose(config))
    return (*ENGINE_RULES, *shipped_rules())
