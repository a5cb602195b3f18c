"""The structural-identity authorities."""

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Params:
    """Immutable parameters compared by type and field values."""

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(vars(self).items()))))


@dataclass(frozen=True, eq=False)
class Meta:
    key: str = ""
    value: str = ""
