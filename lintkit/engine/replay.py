"""Replay a project's last result before anything heavy is imported.

When nothing has changed, the results cache (``lintkit.engine.results``) already holds the
answer. But the full run finds it only after validating the configuration and importing
every rule, because the cache key names the rules. That is pydantic, the settings model and
the rule modules, about half of a warm run. So whenever the full run stores or replays a
result, it also writes a *replay note* beside the cache:

- the *invocation*: lion-lint's and Python's versions, ``sys.path``, the configuration
  file's path and bytes, the root's ``pyproject.toml``, and the command-line options that
  decide the rules or the files;
- the validated settings, as plain data;
- the part of the results key that comes from the rules: those on offer, those selected,
  and the content of every module they run on, with each module's size and modification
  time;
- the size and modification time of each project file.

The next run with the same invocation reads the note before it imports pydantic or a rule,
re-stats the rules' modules, discovers the project's files with the recorded settings,
stats them, then reads and hashes them as the full run does and makes the very same key. If
the results cache holds that key, its result is the answer: the replay repeats the full
run's last step (targets, baseline) and reports it. Anything else falls back to the full
run: no note, another invocation, a touched module, a file that is new, gone or changed, a
nested project within the targets. Each of those is noticed before any file is read, so a
miss costs little more than discovering the files once more. The replay never stands in for
a computation the full run would not have replayed itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import lintkit
from lintkit.config.locate import ConfigError
from lintkit.engine import phase1
from lintkit.engine.cache import cache_place, configured_directory, file_hash, write_entry
from lintkit.engine.projects import (ProjectResult, RunOptions, Scope, empty_project, plan,
                                     saved_as, scope_of, settle_result)
from lintkit.engine.results import ResultsCache, stamps

#: Bump when the shape of a note changes.
NOTE_VERSION = 2


def replay(paths: list[Path], config_path: Path | None,
           options: RunOptions) -> list[ProjectResult] | None:
    """The results of every project the paths reach, each replayed from its last run, or
    None when any project cannot be (then the caller runs them all in full)."""
    if options.record_baseline or not options.use_cache:
        return None
    if options.stdin is not None and not saved_as(*options.stdin):
        return None  # an editor's unsaved buffer: known before the note is read
    results = []
    for root, (config, targets) in sorted(plan(paths, config_path).items()):
        result = _replay_project(root, config, targets, options)
        if result is None:
            return None
        results.append(result)
    return results


def write_note(root: Path, config_path: Path | None, options: RunOptions,
               settings: dict[str, Any], rules_part: dict[str, Any], scope: Scope,
               cache_directory: Path) -> None:
    """Record what the next run needs to replay this one's result (the full run calls this
    whenever it stores or replays a result)."""
    if scope.overrides or options.record_baseline:
        return
    note = {
        "version": NOTE_VERSION,
        "invocation": _invocation(root, config_path, options),
        "settings": settings,
        "rules": rules_part,
        "files": _file_stamps(root, scope.paths),
    }
    target = _note_path(root, cache_directory)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # ASCII JSON: a file name that is not UTF-8 travels as escaped surrogates.
        write_entry(target, json.dumps(note, separators=(",", ":")))
    except OSError:
        pass  # a cache that cannot be written costs speed, never correctness


def _replay_project(root: Path, config_path: Path | None, targets: list[Path],
                    options: RunOptions) -> ProjectResult | None:
    try:
        directory = options.cache_dir or configured_directory(root, config_path)
        note = json.loads(_note_path(root, directory).read_bytes())
        if note["version"] != NOTE_VERSION:
            return None
        if note["invocation"] != _invocation(root, config_path, options):
            return None
        rules_part = note["rules"]
        code = rules_part["stamps"]
        if stamps([filename for filename, _, _ in code]) != code:
            return None
        settings = SimpleNamespace(**{name: tuple(value) if isinstance(value, list) else value
                                      for name, value in note["settings"].items()})
        recorded_files = note["files"]
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError,
            ConfigError):
        return None  # no note, or a damaged or foreign one: run in full
    scope = scope_of(root, config_path, settings, targets, options)
    if (scope.overrides or scope.nested_reached(targets)
            or _file_stamps(root, scope.paths) != recorded_files):
        return None  # an editor's unsaved buffer is never replayed
    found = phase1.survey(root, scope.paths, {}, phase1.options_for(
        root, settings, use_cache=True, cache_dir=directory), settings)
    files = found.fingerprint()
    if files is None or found.cache is None:
        return None
    stored = ResultsCache(found.cache, root)
    replayed = stored.load(stored.key(files, config_path, rules_part, scope.unreadable),
                           scope.targets)
    if replayed is None:
        return None
    result = ProjectResult(root=root, config=None, rules=[])
    result.diagnostics, result.suppressed = replayed
    settle_result(result, scope, empty_project(root, {}), set(rules_part["active"]),
                  config_path, settings.baseline, options)
    return result


def _invocation(root: Path, config_path: Path | None, options: RunOptions) -> str:
    """A hash of everything, besides the files and the rules' code, that decides which
    rules run with which options on which files."""
    material = {
        "lion-lint": lintkit.__version__,  # read now, as the facts salt reads it
        "python": sys.version,
        "executable": sys.executable,
        # Where plugins are imported from.
        "path": sys.path,
        "root": str(root),
        "config": [str(config_path), file_hash(config_path)],
        "pyproject": file_hash(root / "pyproject.toml"),
        "select": options.select,
        "extend-select": options.extend_select,
        "ignore": options.ignore,
        "force-exclude": options.force_exclude,
        "cache-dir": str(options.cache_dir) if options.cache_dir else None,
    }
    text = json.dumps(material, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def _note_path(root: Path, cache_directory: Path) -> Path:
    place = hashlib.blake2b(cache_place(root, cache_directory).encode("utf-8", "surrogatepass"),
                            digest_size=16).hexdigest()
    return cache_directory / "replay" / f"{place}.json"


def _file_stamps(root: Path, paths: list[str]) -> list[list[Any]]:
    return [[path, size, mtime] for path, (_, size, mtime)
            in zip(paths, stamps([os.path.join(root, path) for path in paths]))]
