"""The explicit-composition shape (ADR-0119 D6): declarations are values, a decorator only
tags, and one named function composes the registry. LL003 has nothing to report here."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    entity_type: str
    terminal: frozenset[str]


def declared(policy: Policy) -> Policy:
    """Tag a declaration; collecting it is the composition root's job."""
    object.__setattr__(policy, "__declared__", True)
    return policy


class PolicyRegistry:
    def __init__(self) -> None:
        self._by_entity_type: dict[str, Policy] = {}

    def register(self, policy: Policy) -> None:
        if policy.entity_type in self._by_entity_type:
            raise ValueError(f"{policy.entity_type!r} is already registered")
        self._by_entity_type[policy.entity_type] = policy


SESSION = declared(Policy("session", frozenset({"completed", "failed"})))
INVOCATION = declared(Policy("invocation", frozenset({"completed", "failed"})))


def build_default_registry() -> PolicyRegistry:
    registry = PolicyRegistry()
    registry.register(SESSION)
    registry.register(INVOCATION)
    return registry


DEFAULT_REGISTRY = build_default_registry()
