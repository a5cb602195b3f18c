from dataclasses import dataclass

from tidy.base import Params


@dataclass(frozen=True, eq=False)
class FetchParams(Params):
    url: str = ""
    timeout: float = 10.0
