from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Params:
    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(vars(self).items()))))
