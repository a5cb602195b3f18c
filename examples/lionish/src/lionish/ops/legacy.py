"""Compatibility adapters that still collapse None or empty values: the inventory's sites."""

from ..core._sentinel import ModelConfig, _compat_is_sentinel, is_sentinel
from ..core.base import Params


class LegacyParam(Params):
    _config = ModelConfig(none_as_sentinel=True)  # inventoried


class ChattyParam(Params):
    _config = ModelConfig(empty_as_sentinel=True)  # not in the inventory: LL002


def render(values: list[object]) -> list[object]:
    return [v for v in values
            if not _compat_is_sentinel(v, site="lionish.ops.legacy.render",
                                       empty_as_sentinel=True)]


def summarize(values: list[object]) -> list[object]:
    # A site string copied from render: LL002 (it must name summarize).
    return [v for v in values
            if not _compat_is_sentinel(v, site="lionish.ops.legacy.render",
                                       empty_as_sentinel=True)]


def present(value: object) -> bool:
    return not is_sentinel(value, none_as_sentinel=True)  # the public helper takes no flag: LL002
