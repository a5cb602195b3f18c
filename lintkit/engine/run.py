"""Orchestration: find the projects, run phase 1 and phase 2, apply waivers, filter.

The engine takes the rules it runs as arguments; the composition root (the CLI) decides
which. Nothing here imports the CLI or the reporters.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lintkit.config.load import ConfigError, LoadedConfig, describe_validation_error, find_project_root, load_config
from lintkit.core.builtin import ENGINE_RULES
from lintkit.core.diagnostics import Diagnostic, Location, sort_diagnostics
from lintkit.core.facts import FileFacts
from lintkit.core.index import ProjectIndex, module_name_for
from lintkit.core.project import Project
from lintkit.core.rule import Rule, rule_key_matches
from lintkit.core.suppressions import Suppressed, apply_suppressions, group_by_path
from lintkit.engine import baseline as baselines
from lintkit.engine import phase1
from lintkit.engine.discovery import discover
from lintkit.engine.results import ResultsCache

#: Given a project's configuration, the rule classes that may run there.
Composer = Callable[[LoadedConfig], Sequence[type[Rule]]]


class InternalError(Exception):
    """A bug in lion-lint or in a rule: never mistaken for a clean run."""


@dataclass
class RunOptions:
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: (path, source): lint this text as if it were the file at path (an editor buffer).
    stdin: tuple[Path, bytes] | None = None
    #: Called as progress(done, total) while phase 1 works through a project's files
    #: (the CLI draws a progress bar with it); the engine never prints.
    progress: Callable[[int, int], None] | None = None
    #: Keep excluded files out even when named explicitly (pre-commit names every staged
    #: file, excluded or not).
    force_exclude: bool = False
    #: A baseline file applied instead of the configured ``baseline`` (--baseline).
    baseline: Path | None = None
    #: Apply no baseline; key every diagnostic for a new one instead (--write-baseline).
    record_baseline: bool = False
    #: Read and write the phase-1 cache (the CLI's default; off for library callers).
    use_cache: bool = False
    #: The cache directory instead of the ``cache-dir`` setting (--cache-dir).
    cache_dir: Path | None = None
    #: Worker processes for parsing; None: the usable cores (--jobs).
    jobs: int | None = None


@dataclass
class ProjectResult:
    root: Path
    config: LoadedConfig
    rules: list[Rule]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)
    files_checked: int = 0
    #: Roots of projects nested below this one (their own [tool.lion-lint]) within the targets.
    nested: list[Path] = field(default_factory=list)
    #: How many diagnostics the baseline held back.
    baselined: int = 0
    #: With RunOptions.record_baseline: each diagnostic's baseline key.
    baseline_keys: dict[Diagnostic, baselines.Key] = field(default_factory=dict)


def plan(paths: Sequence[Path], config_path: Path | None) -> dict[Path, tuple[Path | None, list[Path]]]:
    """Group the requested paths by the project they belong to: root -> (config, targets)."""
    projects: dict[Path, tuple[Path | None, list[Path]]] = {}
    for path in paths:
        absolute = path.resolve() if path.exists() else path.absolute()
        if config_path is not None:
            root, config = config_path.resolve().parent, config_path.resolve()
        else:
            root, config = find_project_root(absolute)
        projects.setdefault(root, (config, []))[1].append(absolute)
    return projects


def select_rules(available: Sequence[type[Rule]], config: LoadedConfig,
                 options: RunOptions) -> list[type[Rule]]:
    settings = config.settings
    select = options.select if options.select is not None else settings.select
    extend = settings.extend_select + options.extend_select
    ignore = settings.ignore + options.ignore
    # Name where each selector was written: the command line or the configuration's key.
    table = f"{config.path}: [tool.lion-lint]" if config.path else "[tool.lion-lint]"
    written = [*((s, "--select") for s in options.select or ()),
               *((s, "--extend-select") for s in options.extend_select),
               *((s, "--ignore") for s in options.ignore),
               *((s, f"{table} select") for s in settings.select or ()),
               *((s, f"{table} extend-select") for s in settings.extend_select),
               *((s, f"{table} ignore") for s in settings.ignore)]
    for selector, where in written:
        if not any(rule_key_matches(rule, selector) for rule in available):
            raise ConfigError(f"{where}: unknown rule '{selector}' (see `lion-lint rules`)")
    chosen = []
    for rule in available:
        if select is not None:
            on = any(rule_key_matches(rule, s) for s in select)
        else:
            on = rule.default_enabled
        on = on or any(rule_key_matches(rule, s) for s in extend)
        if on and not any(rule_key_matches(rule, s) for s in ignore):
            chosen.append(rule)
    return chosen


def instantiate(rules: Sequence[type[Rule]], config: LoadedConfig) -> list[Rule]:
    instances = []
    for rule in rules:
        try:
            options = rule.options_from_config(config.tool_table)
        except ValidationError as error:
            # A top-level key the rule reads (config_keys) is named from [tool.lion-lint].
            first = error.errors()[0]["loc"]
            table = "tool.lion-lint" if first and first[0] in rule.config_keys \
                else f"tool.lion-lint.{rule.name}"
            raise ConfigError(describe_validation_error(config.path, table, error)) from None
        instances.append(rule(options))
    return instances


def known_config_keys(rules: Sequence[type[Rule]]) -> set[str]:
    keys = set()
    for rule in rules:
        keys.add(rule.name)
        keys.update(rule.config_keys)
    return keys


def _within(path: str, targets: list[str]) -> bool:
    return any(t == "" or path == t or path.startswith(t + "/") for t in targets)


def load_project(root: Path, config_path: Path | None, compose: Composer,
                 options: RunOptions) -> tuple[LoadedConfig, list[type[Rule]], list[Rule]]:
    """Validate a project's configuration and decide its rules: (config, available, active)."""
    # Read once for the plugin list (any key allowed), then validate every key against the
    # composed rules' keys.
    preliminary = load_config(root, config_path, known_keys=_all_keys_tolerant(config_path))
    available = [*ENGINE_RULES, *compose(preliminary)]
    codes = [r.code for r in available]
    duplicated = sorted({c for c in codes if codes.count(c) > 1})
    if duplicated:
        raise ConfigError(f"{config_path}: rule code {duplicated[0]} is used by more than one rule")
    config = load_config(root, config_path, known_keys=known_config_keys(available))
    rules = instantiate(select_rules(available, config, options), config)
    return config, available, rules


def lint_project(root: Path, config_path: Path | None, targets: list[Path], compose: Composer,
                 options: RunOptions) -> ProjectResult:
    config, available, rules = load_project(root, config_path, compose, options)
    return lint_loaded(config, available, rules, targets, options)


def build_project(config: LoadedConfig, paths: list[str] | None = None,
                  overrides: dict[str, bytes] | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  options: RunOptions | None = None) -> Project:
    """Phases 1 and 2 for a project: every file's facts and the index (``paths`` defaults
    to every file discovery finds)."""
    if paths is None:
        paths, _ = discover(config.root, config.settings, split_nested=config.path is not None
                            and config.path.parent == config.root)
    overrides = overrides or {}
    facts = phase1.run_phase1(config.root, paths, overrides,
                              _phase1_options(config, options or RunOptions()), progress,
                              config.settings).facts
    return _index(config, facts, overrides)


def _phase1_options(config: LoadedConfig, options: RunOptions) -> phase1.Phase1Options:
    return phase1.options_for(config.root, config.settings, use_cache=options.use_cache,
                              cache_dir=options.cache_dir, jobs=options.jobs)


def _index(config: LoadedConfig, facts: list[FileFacts], overrides: dict[str, bytes]) -> Project:
    src_roots = config.src_roots()
    module_names = {f.path: module_name_for(f.path, src_roots)[0] for f in facts}
    return Project(root=config.root, index=ProjectIndex(facts, module_names),
                   overrides=overrides)


def lint_loaded(config: LoadedConfig, available: Sequence[type[Rule]], rules: list[Rule],
                targets: list[Path], options: RunOptions) -> ProjectResult:
    root = config.root
    relative_targets = []
    for target in targets:
        try:
            relative_targets.append(target.relative_to(root).as_posix().strip(".") if target != root else "")
        except ValueError:
            relative_targets.append(target.as_posix())
    unreadable: list[tuple[str, str]] = []
    paths, nested = discover(root, config.settings, split_nested=config.path is not None
                             and config.path.parent == root, unreadable=unreadable)
    overrides: dict[str, bytes] = {}
    if options.stdin is not None:
        stdin_path, source = options.stdin
        relative = stdin_path.relative_to(root).as_posix() if stdin_path.is_absolute() else stdin_path.as_posix()
        overrides[relative] = source
        if relative not in paths:
            paths = sorted({*paths, relative})
        relative_targets = [relative]
    # An explicitly named file is linted even if excluded (as other linters do), unless
    # exclusions are forced.
    for target in relative_targets if not options.force_exclude else ():
        if target.endswith(".py") and target not in paths and (root / target).is_file():
            paths = sorted({*paths, target})

    phase1_options = _phase1_options(config, options)
    found = phase1.survey(root, paths, overrides, phase1_options, config.settings)
    result = ProjectResult(root=root, config=config, rules=rules,
                           nested=[n for n in nested if _targets_reach(n, targets)])
    files = found.fingerprint()
    stored = ResultsCache(found.cache, root) if files is not None and found.cache else None
    key = stored.key(files or [], config.path, available, rules, unreadable) if stored else ""
    replayed = stored.load(key) if stored else None
    if replayed is not None:
        result.diagnostics, result.suppressed = replayed
        project = Project(root=root, index=ProjectIndex([], {}), overrides=overrides)
    else:
        project = _index(config, phase1.finish_phase1(found, phase1_options,
                                                      options.progress).facts, overrides)
        result.diagnostics, result.suppressed = _phase2(project, available, rules, unreadable)
        if stored is not None:
            stored.store(key, result.diagnostics, result.suppressed)
    result.diagnostics = sort_diagnostics(
        [d for d in result.diagnostics if _within(d.path, relative_targets)])
    result.suppressed = [s for s in result.suppressed if _within(s.diagnostic.path, relative_targets)]
    result.files_checked = sum(1 for p in paths if _within(p, relative_targets))
    checked = {p for p in paths if _within(p, relative_targets)}
    active = {r.code for r in rules}
    chosen = None if options.record_baseline else (
        options.baseline or baselines.configured(root, config.path, config.settings.baseline))

    def ran_on(path: str) -> bool:  # a file this run checked, or one deleted since
        return path in checked or (_within(path, relative_targets) and not (root / path).exists()
                                   and not any(n in (root / path).parents for n in nested))

    diagnostics, result.baselined, result.baseline_keys = baselines.settle(
        result.diagnostics, project.source_lines, root, chosen, options.record_baseline, ran_on,
        active)
    result.diagnostics = sort_diagnostics(diagnostics)
    return result


def _phase2(project: Project, available: Sequence[type[Rule]], rules: list[Rule],
            unreadable: list[tuple[str, str]]) -> tuple[list[Diagnostic], list[Suppressed]]:
    """Run the rules on the project; their diagnostics with the waivers applied."""
    facts = project.files
    active = {r.code for r in rules}
    raw: list[Diagnostic] = []
    if "LL000" in active:
        for file in facts:
            if file.error is not None:
                raw.append(Diagnostic(Location(file.path, file.error.line, file.error.column,
                                               file.error.line, file.error.column),
                                      "LL000", "syntax-error", file.error.message))
        for directory, reason in unreadable:
            raw.append(Diagnostic(Location(directory, 1, 1, 1, 1), "LL000", "syntax-error",
                                  f"cannot read directory: {reason}"))
    for rule in rules:
        try:
            raw.extend(rule.check(project))
        except Exception as error:  # a rule bug must not look like a clean run
            raise InternalError(f"rule {rule.code} ({rule.name}) failed: "
                                f"{type(error).__name__}: {error}\n{traceback.format_exc()}") from error

    names = {r.code: r.name for r in available}
    by_path = group_by_path(raw)
    diagnostics: list[Diagnostic] = []
    suppressed: list[Suppressed] = []
    for file in facts:
        kept, waived, problems = apply_suppressions(file, by_path.pop(file.path, []), active, names)
        diagnostics.extend(kept)
        suppressed.extend(waived)
        diagnostics.extend(p for p in problems if p.code in active)
    for leftover in by_path.values():  # diagnostics at paths outside the project's files
        diagnostics.extend(leftover)
    return diagnostics, suppressed


def _targets_reach(nested_root: Path, targets: list[Path]) -> bool:
    return any(nested_root == t or t in nested_root.parents or nested_root in t.parents
               for t in targets)


def lint_paths(paths: Sequence[Path], config_path: Path | None, compose: Composer,
               options: RunOptions) -> list[ProjectResult]:
    """Lint every project the paths reach, nested projects included, in a stable order."""
    queue = sorted(plan(paths, config_path).items())
    results: list[ProjectResult] = []
    seen: set[Path] = set()
    while queue:
        root, (config, targets) = queue.pop(0)
        if root in seen:
            continue
        seen.add(root)
        with phase1.collector_paused():
            result = lint_project(root, config, targets, compose, options)
        results.append(result)
        for nested_root in result.nested:
            inner = [t for t in targets if nested_root in t.parents or t == nested_root]
            queue.append((nested_root, (nested_root / "pyproject.toml", inner or [nested_root])))
    return sorted(results, key=lambda r: r.root)


def _all_keys_tolerant(config_path: Path | None) -> set[str]:
    """Before plugins are loaded their keys are unknown: accept any key at this stage."""
    from lintkit.config.load import read_tool_table

    table = read_tool_table(config_path) if config_path is not None else None
    return set(table or {})
