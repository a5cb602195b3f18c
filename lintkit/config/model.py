"""The ``[tool.lion-lint]`` table, validated with pydantic."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from lintkit.config.locate import DEFAULT_CACHE_DIR, DEFAULT_EXCLUDE


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class Settings(BaseModel):
    """Engine settings. Each rule's own table (``[tool.lion-lint.<rule-name>]``) is validated
    by that rule's options model."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=_kebab,
                              populate_by_name=True)

    src: tuple[str, ...] | None = Field(
        default=None, description="roots where top-level packages live (default: '.' and 'src')")
    include: tuple[str, ...] = ("*.py",)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    baseline: str | None = None
    cache_dir: str = DEFAULT_CACHE_DIR
    # LibCST holds about 2 KB of tree per byte of dense code: a 10 MB generated module would
    # need 20 GB. Larger files are reported (LL000), not parsed; 0 lifts the limit.
    max_file_size: int = Field(default=4 * 1024 * 1024, ge=0,
                               description="bytes; larger files are LL000, not parsed")
