"""Orchestration: find the projects, run phase 1 and phase 2, apply waivers, filter.

The engine takes the rules it runs as arguments; the composition root (the CLI) decides
which. Nothing here imports the CLI or the reporters. The steps a replayed run shares with
this one (the files a project's run covers, the last step) live in
``lintkit.engine.projects``; this module adds the configuration, the rules and the phases.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter

from pydantic import ValidationError

from lintkit.config.load import LoadedConfig, describe_validation_error, load_config
from lintkit.config.locate import ConfigError
from lintkit.core.builtin import ENGINE_RULES
from lintkit.core.diagnostics import Diagnostic, Location
from lintkit.core.facts import FileFacts
from lintkit.core.index import ProjectIndex, module_name_for
from lintkit.core.project import Project
from lintkit.core.rule import Rule, rule_key_matches
from lintkit.core.suppressions import Suppressed, apply_suppressions, group_by_path
from lintkit.core.text import plural
from lintkit.engine import phase1
from lintkit.engine.discovery import discover
from lintkit.engine.memory import collector_paused
from lintkit.engine.projects import (InternalError, ProjectResult, RunOptions, Timing,
                                     empty_project, plan, scope_of, settle_result)
from lintkit.engine.replay import write_note
from lintkit.engine.results import ResultsCache

#: Given a project's configuration, the rule classes that may run there.
Composer = Callable[[LoadedConfig], Sequence[type[Rule]]]


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
            top_level = bool(first) and first[0] in rule.config_keys
            table = "tool.lion-lint" if top_level else f"tool.lion-lint.{rule.name}"
            keys = () if top_level else [
                info.alias or name for name, info in rule.Options.model_fields.items()
                if (info.alias or name) not in rule.config_keys]
            raise ConfigError(describe_validation_error(config.path, table, error,
                                                        rule.Options, keys)) from None
        try:
            instances.append(rule(options))
        except (Exception, SystemExit) as error:
            raise _rule_failure(rule, error, config.root) from error
    return instances


def _rule_failure(rule: Rule | type[Rule], error: BaseException, root: Path) -> InternalError:
    """The InternalError of a rule that raised (in ``check``, or while being made). A
    project's own rule (not lion-lint's) is named with the line of its module that raised,
    for its author."""
    rule_class = rule if isinstance(rule, type) else type(rule)
    message = f"rule {rule.code} ({rule.name}) failed: {type(error).__name__}: {error}"
    module = rule_class.__module__
    if module.partition(".")[0] in ("lintkit", "lion_lint"):
        return InternalError(f"{message}\n{traceback.format_exc()}")
    source = sys.modules[module].__file__ if module in sys.modules else None
    place = where_raised(error, root, source) if source else None
    if place:
        message = f"{message} (at {place})"
    return InternalError(f"{message}\n{traceback.format_exc()}", plugin=module)


def where_raised(error: BaseException, root: Path, source: str | None = None) -> str | None:
    """``path:line`` of the innermost frame of ``error``'s traceback in the file ``source``,
    or with no ``source``, in any file under ``root``; the path is relative to ``root``
    where it lies inside it. None when no frame is there."""
    resolved_root = root.resolve()
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if source is not None and frame.filename != source:
            continue
        if frame.filename.startswith("<"):  # "<frozen importlib._bootstrap>": not a file
            continue
        path = Path(frame.filename).resolve()
        inside = path.is_relative_to(resolved_root)
        if source is None and not inside:
            continue
        shown = path.relative_to(resolved_root).as_posix() if inside else frame.filename
        return f"{shown}:{frame.lineno}"
    return None


def _checked(item: object) -> Diagnostic:
    """A diagnostic a rule reported, if it is one that every report can print."""
    if not isinstance(item, Diagnostic):
        raise TypeError(f"check yielded {type(item).__name__} {item!r:.60}, not a Diagnostic "
                        "(make one with self.diagnostic(path, span, message))")
    if not isinstance(item.message, str) or not item.message.strip():
        raise TypeError(f"a diagnostic's message is {item.message!r}: say what is wrong, in words")
    where = item.location
    if not isinstance(where.path, str) or not where.path or os.path.isabs(where.path):
        raise ValueError(f"a diagnostic's path is {where.path!r}: give the path relative to "
                         "the project root, as FileFacts.path has it")
    fix = item.fix
    if fix is not None:
        edited = sorted({edit.path for edit in fix.edits})
        # --fix writes each file alone, atomically: a fix over several files could be half done.
        if len(edited) > 1:
            raise ValueError(f"a fix in {where.path} edits several files ({', '.join(edited)}); "
                             "a fix edits one file")
        if edited and os.path.isabs(edited[0]):
            raise ValueError(f"a fix's path is {edited[0]!r}: give the path relative to the "
                             "project root, as FileFacts.path has it")
    if item.severity not in ("error", "warning"):
        raise ValueError(f"a diagnostic's severity is {item.severity!r}: 'error' or 'warning'")
    start, end = (where.line, where.column), (where.end_line, where.end_column)
    if not all(isinstance(n, int) and n >= 1 for n in (*start, *end)) or end < start:
        raise ValueError(f"a diagnostic in {where.path} spans {start} to {end}: lines and "
                         "columns count from 1, and a span ends at or after its start")
    return item


def known_config_keys(rules: Sequence[type[Rule]]) -> set[str]:
    keys = set()
    for rule in rules:
        keys.add(rule.name)
        keys.update(rule.config_keys)
    return keys


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
    started = perf_counter()
    config, available, rules = load_project(root, config_path, compose, options)
    loaded = Timing("configuration", perf_counter() - started,
                    f"validated, the rules imported: {len(rules)} of {len(available)} "
                    "selected")
    result = lint_loaded(config, available, rules, targets, options)
    result.timings.insert(0, loaded)
    return result


def build_project(config: LoadedConfig, paths: list[str] | None = None,
                  overrides: dict[str, bytes] | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  options: RunOptions | None = None) -> Project:
    """Phases 1 and 2 for a project: every file's facts and the index (``paths`` defaults
    to every file discovery finds)."""
    if paths is None:
        paths, _ = discover(config.root, config.settings)
    overrides = overrides or {}
    facts = phase1.run_phase1(config.root, paths, overrides,
                              _phase1_options(config, options or RunOptions()), progress,
                              config.settings).facts
    return index_project(config, facts, overrides)


def _phase1_options(config: LoadedConfig, options: RunOptions) -> phase1.Phase1Options:
    return phase1.options_for(config.root, config.settings, use_cache=options.use_cache,
                              cache_dir=options.cache_dir, jobs=options.jobs,
                              ahead=options.parsed_ahead)


def index_project(config: LoadedConfig, facts: list[FileFacts], overrides: dict[str, bytes],
                  targets: Sequence[str] = ("",)) -> Project:
    """Phase 2's project: the index over ``facts``, ready for the rules."""
    src_roots = config.src_roots()
    module_names = {f.path: module_name_for(f.path, src_roots)[0] for f in facts}
    return Project(root=config.root, index=ProjectIndex(facts, module_names),
                   overrides=overrides, targets=tuple(targets))


def lint_loaded(config: LoadedConfig, available: Sequence[type[Rule]], rules: list[Rule],
                targets: list[Path], options: RunOptions) -> ProjectResult:
    root = config.root
    scope = scope_of(root, config.path, config.settings, targets, options)
    phase1_options = _phase1_options(config, options)
    started = perf_counter()
    found = phase1.survey(root, scope.paths, scope.overrides, phase1_options, config.settings)
    result = ProjectResult(root=root, config=config, rules=rules,
                           nested=scope.nested_reached(targets))
    timings = result.timings
    timings.append(Timing("survey", perf_counter() - started, f"{len(scope.paths)} files"))
    started = perf_counter()
    files = found.fingerprint()
    stored = ResultsCache(found.cache, root) if files is not None and found.cache else None
    rules_part = stored.rules_part(available, rules) if stored else {}
    key = stored.key(files or [], config.path, rules_part, scope.unreadable) if stored else ""
    replayed = stored.load(key, scope.targets) if stored else None
    timings.append(Timing("results", perf_counter() - started, _lookup_detail(stored, replayed)))
    if replayed is not None:
        result.diagnostics, result.suppressed = replayed
        project = empty_project(root, scope.overrides)
    else:
        started = perf_counter()
        done = phase1.finish_phase1(found, phase1_options, options.progress)
        timings.append(Timing("phase 1", perf_counter() - started, _phase1_detail(done)))
        started = perf_counter()
        # The rules may skip what lies outside the targets: what the run reports is the same.
        project = index_project(config, done.facts, scope.overrides, scope.targets)
        timings.append(Timing("index", perf_counter() - started, f"{len(done.facts)} modules"))
        result.diagnostics, result.suppressed = _phase2(project, available, rules,
                                                        scope.unreadable, timings)
    started = perf_counter()
    if replayed is None and stored is not None:
        stored.store(key, result.diagnostics, result.suppressed, scope.targets)
    if stored is not None and found.cache is not None:
        write_note(root, config.path, options, config.settings.model_dump(mode="json"),
                   rules_part, scope, found.cache.directory)
    settle_result(result, scope, project, {r.code for r in rules}, config.path,
                  config.settings.baseline, options)
    timings.append(Timing("settle", perf_counter() - started,
                          "the targets and the baseline applied"
                          + ("; the result stored" if replayed is None and stored else "")))
    if options.keep_project:
        result.project = project
    return result


def _lookup_detail(stored: ResultsCache | None, replayed: object) -> str:
    if stored is None:
        return "not looked up (an editor's buffer, or the cache is off)"
    if replayed is None:
        return "none stored for these files and rules"
    return "stored for these files and rules: replayed"


def _phase1_detail(done: phase1.Phase1Result) -> str:
    workers = f" by {plural(done.workers, 'worker')}" if done.workers else ""
    ahead = f"; {done.ahead} parsed ahead in a child" if done.ahead else ""
    return f"{done.from_cache} from the cache, {len(done.parsed)} parsed{workers}{ahead}"


def _phase2(project: Project, available: Sequence[type[Rule]], rules: list[Rule],
            unreadable: list[tuple[str, str]], timings: list[Timing]
            ) -> tuple[list[Diagnostic], list[Suppressed]]:
    """Run the rules on the project; their diagnostics with the waivers applied (and each
    rule's time added to ``timings``)."""
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
        started = perf_counter()
        try:
            raw.extend(_checked(item) for item in rule.check(project))
            # Each rule asks mostly its own questions: what the last one resolved is
            # dropped rather than carried to the run's peak (16 MB on the standard library).
            project.index.forget_resolutions()
        # A rule bug must not look like a clean run: not even a sys.exit(0) in check.
        except (Exception, SystemExit) as error:
            raise _rule_failure(rule, error, project.root) from error
        if not isinstance(rule, ENGINE_RULES):  # their work is phase 1's and the waivers'
            timings.append(Timing(rule.code, perf_counter() - started, rule.name))

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
        for earlier in results:
            earlier.project = None  # one project in memory at a time
        with collector_paused():
            result = lint_project(root, config, targets, compose, options)
        results.append(result)
        for nested_root in result.nested:
            inner = [t for t in targets if nested_root in t.parents or t == nested_root]
            queue.append((nested_root, (nested_root / "pyproject.toml", inner or [nested_root])))
    return sorted(results, key=lambda r: r.root)


def _all_keys_tolerant(config_path: Path | None) -> set[str]:
    """Before plugins are loaded their keys are unknown: accept any key at this stage."""
    from lintkit.config.locate import read_tool_table

    table = read_tool_table(config_path) if config_path is not None else None
    return set(table or {})
