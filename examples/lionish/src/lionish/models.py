"""Pydantic models for the public API: an adapter, so it belongs outside the neutral core."""

from pydantic import BaseModel


class Model(BaseModel):
    name: str = ""
