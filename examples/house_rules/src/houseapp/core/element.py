"""The identity envelope every addressable model shares (ADR-0001), with a str id (ADR-0021)."""

from __future__ import annotations

import time
from uuid import uuid4

from pydantic import BaseModel, ConfigDict, Field


class Element(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=lambda: str(uuid4()), frozen=True)
    created_at: float = Field(default_factory=time.time, frozen=True)
    metadata: dict = Field(default_factory=dict)
