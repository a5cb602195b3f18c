from houseapp.core.element import Element

__all__ = ["Element"]
