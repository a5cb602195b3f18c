from .base import Meta, Params
from .spec import Spec

__all__ = ["Meta", "Params", "Spec"]
