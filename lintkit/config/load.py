"""Validate ``[tool.lion-lint]``; turn every problem into one clear ConfigError.

Finding the project and reading its raw table live in ``lintkit.config.locate``, which
imports no pydantic.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from lintkit.config.locate import ConfigError, read_tool_table
from lintkit.config.model import Settings
from lintkit.core.rule import DUPLICATE_KEY, TOML_DATE_OR_TIME, Rule, validate_table


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
    return config_from_table(root, path, dict(table or {}), known_keys=known_keys)


def config_from_table(root: Path, path: Path | None, table: dict[str, Any], *,
                      known_keys: set[str]) -> LoadedConfig:
    """Validate a ``[tool.lion-lint]`` table (read from ``path``, when there is one)."""
    engine_keys = setting_keys()
    unknown = sorted(k for k in table if k not in engine_keys and k not in known_keys)
    if unknown:
        raise ConfigError(unknown_key(f"{path}: ", "tool.lion-lint", unknown[0],
                                      engine_keys | known_keys))
    settings_table = {k: v for k, v in table.items() if k in engine_keys}
    try:
        settings = validate_table(Settings, settings_table)
    except ValidationError as error:
        raise ConfigError(describe_validation_error(path, "tool.lion-lint", error,
                                                    Settings)) from None
    return LoadedConfig(root=root, path=path, settings=settings, tool_table=table)


def setting_keys() -> set[str]:
    """The engine settings' keys, spelled as ``[tool.lion-lint]`` takes them (kebab-case)."""
    return {info.alias or name for name, info in Settings.model_fields.items()}


def held_keys(rules: Iterable[tuple[type[Rule], str]]) -> dict[str, str]:
    """Each top-level key of ``[tool.lion-lint]`` already held, and by what, in words: the
    engine settings, each rule's own table (keyed by its name) and the keys a rule reads
    beside it (``config_keys``). A rule named like one of them would read another's values,
    so its name must be none of them. ``rules`` pairs each rule with how to call it."""
    held = dict.fromkeys(setting_keys(), "a [tool.lion-lint] setting")
    for rule, who in rules:
        held.setdefault(rule.name, f"the name of {who}")
        for key in rule.config_keys:
            held.setdefault(key, f"the [tool.lion-lint] key that {who} reads")
    return held


#: Pydantic's error types for a value of the wrong kind, and the kind in TOML's words
#: (its users write arrays and tables, never tuples or dicts).
_TOML_KINDS = {
    "string_type": "a string", "int_type": "an integer", "int_parsing": "an integer",
    "int_from_float": "an integer", "float_type": "a number", "float_parsing": "a number",
    "bool_type": "true or false", "bool_parsing": "true or false",
    "tuple_type": "an array", "list_type": "an array", "set_type": "an array",
    "frozen_set_type": "an array", "dict_type": "a table", "model_type": "a table",
    "model_attributes_type": "a table",
}
_ITEM_KINDS = {str: "strings", int: "integers", float: "numbers", bool: "booleans"}


def describe_validation_error(path: Path | None, table: str, error: ValidationError,
                              model: type[BaseModel] | None = None,
                              keys: Iterable[str] = ()) -> str:
    """One line for pydantic's first error: the file, the table, the key, and what was
    expected. ``model`` (the table's model) words an array's items; ``keys`` are the keys
    the table takes, listed when an unknown one is found at its top level."""
    first = error.errors()[0]
    loc = first["loc"]
    key = ".".join(str(part) for part in loc) or "(table)"
    where = f"{path}: " if path else ""
    if first["type"] == "extra_forbidden":
        return unknown_key(where, table, key, keys if len(loc) == 1 else ())
    if first["type"] == DUPLICATE_KEY:
        return f"{where}[{table}] key '{key}' is {first['msg']}: keep one"
    if first["type"] == "missing":
        return f"{where}[{table}] key '{key}' is required and missing"
    kind = _TOML_KINDS.get(first["type"])
    if kind == "an array" and model is not None and len(loc) == 1:
        kind = _array_of(model, str(loc[0]))
    message = f"expected {kind}" if kind else _reworded(first["msg"])
    return f"{where}[{table}] key '{key}': {message} (got {_as_toml(first.get('input'))})"


def unknown_key(where: str, table: str, key: str, keys: Iterable[str]) -> str:
    """The message for a key the table does not take, with the keys it does (or the one
    spelling of it: `max-depth`, not `max_depth`)."""
    listed = sorted(keys)
    kebab = key.replace("_", "-")
    if kebab != key and kebab in listed:
        return f"{where}[{table}] unknown key '{key}' (did you mean '{kebab}'?)"
    expected = f" (expected one of: {', '.join(listed)})" if listed else ""
    return f"{where}[{table}] unknown key '{key}'{expected}"


def _as_toml(value: object) -> str:
    """A value as the TOML that gave it (``true``, not Python's ``True``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return f"[{', '.join(_as_toml(item) for item in value)}]"
    if isinstance(value, dict):
        if list(value) == [TOML_DATE_OR_TIME]:
            return str(value[TOML_DATE_OR_TIME])
        return "{" + ", ".join(f"{k} = {_as_toml(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _reworded(message: str) -> str:
    """Pydantic's "Input should be greater than 0" as "expected a value greater than 0"."""
    if message.startswith("Input should be "):
        rest = message.removeprefix("Input should be ")
        return f"expected {rest}" if rest.startswith(("a ", "an ")) else f"expected a value {rest}"
    return message.removeprefix("Value error, ")


def _array_of(model: type[BaseModel], key: str) -> str:
    """"an array of strings" for a field annotated ``tuple[str, ...]`` (or ``| None``)."""
    for name, info in model.model_fields.items():
        if key in (name, info.alias):
            for annotation in (info.annotation, *get_args(info.annotation)):
                items = [a for a in get_args(annotation) if a is not Ellipsis]
                if get_origin(annotation) in (tuple, list, set, frozenset) and \
                        len(items) == 1 and items[0] in _ITEM_KINDS:
                    return f"an array of {_ITEM_KINDS[items[0]]}"
    return "an array"
