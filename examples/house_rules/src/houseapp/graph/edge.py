from __future__ import annotations

from typing import Any

from houseapp.core import Element


class Edge(Element):
    head: str
    tail: str
    properties: dict = {}

    def __init__(self, head: str, tail: str, **kwargs: Any) -> None:
        # Breaks ADR-0001: an id or created_at given to Edge(...) ends up in properties.
        super().__init__(head=head, tail=tail, properties=kwargs)
