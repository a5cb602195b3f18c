"""Local rules: the ``plugins`` list of ``[tool.lion-lint]``, loaded explicitly.

``plugins = ["tools.lint.identity:UuidIdentityIsString"]`` names rule classes as
``module:Class``. Each named module is imported with the project root first on ``sys.path``
(so a project's own ``tools/`` package is found without installing it), and the class is
taken from it. That import executes the plugin's module, and only it (with whatever it
imports): nothing is discovered by importing other modules, and nothing registers itself.
The configured list is the composition.

Every way a plugin can be wrong is a ConfigError that names the plugin and the file.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from lintkit.config.load import LoadedConfig, held_keys
from lintkit.config.locate import ConfigError
from lintkit.core.rule import Rule, rule_definition_problems
from lintkit.engine.run import where_raised

#: Top-level packages imported as plugins, and the project root each came from: a run over
#: several projects (``lion-lint examples/``) may meet two projects' ``tools`` packages.
_IMPORTED_FROM: dict[str, Path] = {}


def load_plugins(config: LoadedConfig, taken: Sequence[type[Rule]] = ()) -> tuple[type[Rule], ...]:
    """The rule classes a project's ``plugins`` list names, in that order.

    ``taken`` are the rules already available (engine and shipped): a plugin may reuse
    neither their codes nor their names.
    """
    specs = config.settings.plugins
    if not specs:
        return ()
    where = f"{config.path or config.root / 'pyproject.toml'}: [tool.lion-lint] plugins"
    loaded: list[tuple[str, type[Rule]]] = []
    with _project_on_path(config.root):
        for spec in specs:
            loaded.append((spec, _load_one(spec, config.root, where)))
    _check_unique(loaded, taken, where)
    return tuple(rule for _, rule in loaded)


def plugin_spec(rule: type[Rule]) -> str:
    """How ``plugins`` names a rule class: ``module:Class``."""
    return f"{rule.__module__}:{rule.__qualname__}"


def _load_one(spec: str, root: Path, where: str) -> type[Rule]:
    module_name, colon, attribute = spec.strip().partition(":")
    if not colon or not _dotted(module_name) or not _dotted(attribute):
        raise ConfigError(f"{where}: '{spec}' is not 'module:Class' (a dotted module path, "
                          "a colon, then the rule class)")
    module = _import(spec, module_name, root, where)
    value: object = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ConfigError(f"{where}: plugin '{spec}': module '{module_name}' "
                              f"({_origin(module)}) has no attribute '{attribute}'")
        value = getattr(value, part)
    if not (isinstance(value, type) and issubclass(value, Rule)):
        what = f"class {value.__qualname__}" if isinstance(value, type) else type(value).__name__
        raise ConfigError(f"{where}: plugin '{spec}' is not a rule: it is a {what}, not a "
                          "subclass of lintkit.Rule")
    if value is Rule:
        raise ConfigError(f"{where}: plugin '{spec}' is lintkit's Rule base class itself")
    problems = rule_definition_problems(value)
    if problems:
        raise ConfigError(f"{where}: plugin '{spec}' is not a complete rule: "
                          + "; ".join(problems))
    return value


def _dotted(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def _import(spec: str, module_name: str, root: Path, where: str) -> ModuleType:
    top = module_name.partition(".")[0]
    _forget_other_projects_copy(top, root, spec, where)
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as error:  # whatever the plugin's module raises
        raise ConfigError(f"{where}: plugin '{spec}' failed to import: "
                          f"{_describe(error, root)}") from None
    if _lives_in(module, root):
        _IMPORTED_FROM[top] = root
    return module


def _forget_other_projects_copy(top: str, root: Path, spec: str, where: str) -> None:
    """Make ``import top`` find this project's copy when another project's is loaded."""
    if not ((root / top).is_dir() or (root / f"{top}.py").is_file()):
        return  # not the project's own package: whatever Python finds (an installed one)
    cached = sys.modules.get(top)
    if cached is None or _lives_in(cached, root):
        return
    other = _IMPORTED_FROM.get(top)
    if other is None or not _lives_in(cached, other):
        # Someone else imported it; dropping it could break them. Refuse to guess.
        raise ConfigError(f"{where}: plugin '{spec}': module '{top}' is already imported from "
                          f"{_origin(cached)}, so this project's {root / top} cannot be loaded "
                          "in this process")
    for name in [n for n in sys.modules if n == top or n.startswith(top + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()


def _lives_in(module: ModuleType, root: Path) -> bool:
    places = [getattr(module, "__file__", None), *getattr(module, "__path__", ())]
    resolved = root.resolve()
    for place in places:
        if place and resolved in Path(place).resolve().parents:
            return True
    return False


def _origin(module: ModuleType) -> str:
    return getattr(module, "__file__", None) or ", ".join(getattr(module, "__path__", ())) \
        or "built in"


def _describe(error: BaseException, root: Path) -> str:
    """The error, and for a runtime error the plugin's line that raised it."""
    text = f"{type(error).__name__}: {error}"
    place = None if isinstance(error, SyntaxError) else where_raised(error, root)
    return f"{text} (at {place})" if place else text


@contextmanager
def _project_on_path(root: Path) -> Iterator[None]:
    entry = str(root.resolve())
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        sys.path.remove(entry)  # removes our entry: the first occurrence


def _check_unique(loaded: list[tuple[str, type[Rule]]], taken: Sequence[type[Rule]],
                  where: str) -> None:
    """No plugin reuses a code, nor is named like a key of [tool.lion-lint] that a setting
    or an earlier rule (lion-lint's, or a plugin before it) already holds."""
    owners: dict[str, str] = {}
    earlier: list[tuple[type[Rule], str]] = []
    for rule in taken:
        owners.setdefault(rule.code, f"lion-lint's rule {rule.code} ({rule.name})")
        earlier.append((rule, f"lion-lint's rule {rule.code} ({rule.name})"))
    for spec, rule in loaded:
        if rule.code in owners:
            raise ConfigError(f"{where}: plugin '{spec}' reuses code {rule.code}, already "
                              f"used by {owners[rule.code]}")
        holder = held_keys(earlier).get(rule.name)
        if holder is not None:
            raise ConfigError(f"{where}: plugin '{spec}' is named '{rule.name}', which is "
                              f"{holder}; choose another name")
        owners[rule.code] = f"plugin '{spec}'"
        earlier.append((rule, f"plugin '{spec}'"))


def project_config(start: Path, config_file: Path | None = None) -> LoadedConfig:
    """The configuration of the project ``start`` lies in (``--config`` wins), read before
    its plugins are known, so any key is accepted here (``check`` validates every key)."""
    from lintkit.config.load import load_config
    from lintkit.config.locate import find_project_root, read_tool_table
    from lintkit.engine.discovery import named_path

    if config_file is not None:
        root, path = config_file.resolve().parent, config_file.resolve()
    else:
        root, path = find_project_root(named_path(start))
    table = read_tool_table(path) if path is not None else None
    return load_config(root, path, known_keys=set(table or {}))
