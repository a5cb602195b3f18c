"""The legacy sentinel flags and the closed inventory of the sites allowed to set them.

A small model of LionAGI's `lionagi.ln.types._sentinel` (ADR-0119 D1): adding a site is an
edit to the constant below, reviewed as a contract change.
"""

from dataclasses import dataclass
from typing import Final

LEGACY_SENTINEL_COLLAPSE_ALLOWLIST: Final[frozenset[tuple[str, str]]] = frozenset(
    {
        ("lionish.ops.legacy.LegacyParam._config", "none"),
        ("lionish.ops.legacy.render", "empty"),
        ("lionish.ops.legacy.RetiredParam._config", "none"),  # its site is gone: LL002
    }
)


@dataclass(frozen=True)
class ModelConfig:
    none_as_sentinel: bool = False
    empty_as_sentinel: bool = False


def _compat_is_sentinel(
    value: object, *, site: str, none_as_sentinel: bool = False, empty_as_sentinel: bool = False
) -> bool:
    """Collapse None/empty values for an inventoried compatibility site only."""
    for enabled, axis in ((none_as_sentinel, "none"), (empty_as_sentinel, "empty")):
        if enabled and (site, axis) not in LEGACY_SENTINEL_COLLAPSE_ALLOWLIST:
            raise ValueError(f"sentinel axis {axis!r} is not allowed for {site!r}")
    if none_as_sentinel and value is None:
        return True
    return empty_as_sentinel and value in ("", (), [], {})


def is_sentinel(value: object, *, none_as_sentinel: bool = False,
                empty_as_sentinel: bool = False) -> bool:
    """Identity semantics only: the legacy flags are rejected."""
    if none_as_sentinel or empty_as_sentinel:
        raise ValueError("legacy sentinel collapse is for inventoried sites only")
    return False
