"""Validate ``[tool.lion-lint]``; turn every problem into one clear ConfigError.

Finding the project and reading its raw table live in ``lintkit.config.locate``, which
imports no pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lintkit.config.locate import ConfigError, read_tool_table
from lintkit.config.model import Settings


@dataclass
class LoadedConfig:
    root: Path
    path: Path | None
    settings: Settings
    tool_table: dict[str, Any] = field(default_factory=dict)

    def src_roots(self) -> tuple[str, ...]:
        if self.settings.src is not None:
            return tuple(s.strip("/") if s not in (".", "") else "" for s in self.settings.src)
        roots = [""]
        if (self.root / "src").is_dir():
            roots.append("src")
        return tuple(roots)


def load_config(root: Path, path: Path | None, *, known_keys: set[str]) -> LoadedConfig:
    """Validate the table. ``known_keys`` are the rule names and rule-owned keys that may
    stand beside the engine settings."""
    table = read_tool_table(path) if path is not None else None
    table = dict(table or {})
    engine_keys = {info.alias or name for name, info in Settings.model_fields.items()}
    unknown = sorted(k for k in table if k not in engine_keys and k not in known_keys)
    if unknown:
        raise ConfigError(
            f"{path}: [tool.lion-lint] unknown key '{unknown[0]}' (expected one of: "
            f"{', '.join(sorted(engine_keys | known_keys))})")
    settings_table = {k: v for k, v in table.items() if k in engine_keys}
    try:
        settings = Settings.model_validate(settings_table)
    except ValidationError as error:
        raise ConfigError(describe_validation_error(path, "tool.lion-lint", error)) from None
    return LoadedConfig(root=root, path=path, settings=settings, tool_table=table)


def describe_validation_error(path: Path | None, table: str, error: ValidationError) -> str:
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"]) or "(table)"
    where = f"{path}: " if path else ""
    if first["type"] == "extra_forbidden":
        return f"{where}[{table}] unknown key '{key}'"
    return f"{where}[{table}] key '{key}': {first['msg']} (got {first.get('input')!r})"
