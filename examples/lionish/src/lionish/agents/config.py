"""Agent configuration: three modules away from the authority."""

from dataclasses import dataclass

from ..ops.types import ChatParam


@dataclass(frozen=True, eq=False)
class AgentParam(ChatParam):
    name: str = "agent"

    def __hash__(self) -> int:  # LL001: no declared override reason
        return hash(self.name)


@dataclass(frozen=True, eq=False)
class LegacyParam(ChatParam):
    # A declared, reviewed override: suppressed with a reason, listed by --show-suppressed.
    def __eq__(self, other: object) -> bool:  # lion-lint: ignore[LL001] -- legacy wire compat until 2027
        return self is other
