from __future__ import annotations

from typing import Any

from ..core import Element


class Node(Element):
    content: Any = None

    def __init__(self, content: Any = None, **kwargs: Any) -> None:
        super().__init__(content=content, **kwargs)
