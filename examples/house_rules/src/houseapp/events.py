"""Events and messages cross a JSON boundary: their ids must be strings (ADR-0021)."""

from __future__ import annotations

from uuid import UUID, uuid4

from pydantic import Field

from houseapp.core import Element, ids


class Event(Element):
    id: UUID = Field(default_factory=uuid4, frozen=True)
    name: str = ""


class Message(Element):
    id: str = Field(default_factory=ids.new_uuid, frozen=True)
    body: str = ""


class Command(Element):
    id: str = Field(default_factory=ids.new_id, frozen=True)
    verb: str = ""
