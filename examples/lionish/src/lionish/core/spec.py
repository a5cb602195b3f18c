from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Spec:
    name: str = ""
