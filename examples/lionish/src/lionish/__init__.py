"""lionish: a LionAGI-shaped example package."""

from lionish.core import Params, Spec

__all__ = ["Params", "Spec"]
