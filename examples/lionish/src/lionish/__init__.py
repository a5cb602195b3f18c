"""lionish: a LionAGI-shaped example package."""

from lionish.core import Params, Spec
from lionish.models import Model  # LL004: importing lionish.core now loads pydantic

__all__ = ["Model", "Params", "Spec"]
