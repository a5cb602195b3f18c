"""Operation parameters: a chain of bases that crosses modules and packages."""

import dataclasses as dc

from lionish import Params  # a re-export through two packages

MorphBase = Params  # a module-level alias


@dc.dataclass(frozen=True, eq=False)
class MorphParam(MorphBase):
    retries: int = 0


@dc.dataclass(frozen=True)  # eq defaults to True: LL001
class ChatParam(MorphParam):
    model: str = "gpt"
