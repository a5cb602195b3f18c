"""Replay a project's last result before anything heavy is imported.

When nothing has changed, the results cache (``lintkit.engine.results``) already holds the
answer. But the full run finds it only after validating the configuration and importing
every rule, because the cache key names the rules. That is pydantic, the settings model and
the rule modules, about half of a warm run. So whenever the full run stores or replays a
result, it also writes a *replay note* beside the cache, one per invocation (see below):

- the *configuration*: lion-lint's and Python's versions, ``sys.path``, the configuration
  file's path and bytes and the root's ``pyproject.toml``; and the *invocation*: that
  with the command-line options that decide the rules or the files;
- the validated settings, as plain data;
- the part of the results key that comes from the rules: those on offer, those selected,
  and the content of every module they run on, with each module's size and modification
  time;
- the size and modification time of each project file.

The next run with the same invocation reads the note before it imports pydantic or a rule,
re-stats the rules' modules, discovers the project's files with the recorded settings,
stats them, then reads and hashes them as the full run does and makes the very same key. If
the results cache holds that key, its result is the answer: the replay repeats the full
run's last step (targets, baseline) and reports it. The files need not be as the note
found them: a file touched but not changed (``git stash`` and ``pop``, an editor saving an
unmodified buffer) still makes a key the results cache may hold, and so does any file
whose content the facts cache holds (each file's last two contents, the one it has back
made current again: an edit undone, each of several edits tried and undone, a branch
checked out again one edit away). A file whose content it does not hold is most
often an edit, to be parsed: that is left to the full run at once (which still replays a
stored result when the key finds one). Anything else falls back to the full run too: no
note, another invocation, a touched module, a nested project within the targets, a key not
stored. All but the last are noticed before more than the files that differ are read, so a
miss costs little more than discovering the files once more. The replay never stands in for a
computation the full run would not have replayed itself.

A project keeps the notes of its last ``KEPT_NOTES`` invocations, each named by its
invocation, not only the latest: a shell's ``lion-lint src/``, the pre-commit hook's
``--force-exclude`` run and a CI job's ``--select`` take turns on one checkout, and each
replays its own last result however the others ran in between. A run with no note of its
own reads the project's latest, of another invocation: it cannot replay that, but its file
stamps still tell which files changed.

When a file's content is not in the facts cache, the replay also starts parsing the files
that differ from the note, if few, into the facts cache in a child process
(``ahead.ParsedAhead``), which the full run then waits for: an edit is parsed while the full
run imports the rules and decodes the other files' facts. A run that differs from the
note's only in the rules or the exclusion it asks for (a pre-commit hook's after a run
from the shell) cannot replay it, but parses ahead all the same: the note's settings
and file stamps are still its configuration's.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from types import SimpleNamespace
from typing import Any

import lintkit
from lintkit.config.locate import ConfigError
from lintkit.core.text import plural
from lintkit.engine import phase1
from lintkit.engine.ahead import ParsedAhead, parse_ahead, parse_buffer_ahead
from lintkit.engine.cache import (FactsCache, cache_place, configured_directory,
                                  content_hash, file_hash, unlink_quietly,
                                  unusable_cache_directory, write_entry)
from lintkit.engine.projects import (ProjectResult, RunOptions, Scope, Timing, buffer_path,
                                     empty_project, plan, saved_as, scope_of, settle_result)
from lintkit.engine.results import ResultsCache, stamps

#: Bump when the shape of a note changes.
NOTE_VERSION = 3
#: How many invocations of a project keep a note (a shell's, a hook's, a CI job's...): a
#: note is a few KB, 110 KB for the standard library's 1,788 files.
KEPT_NOTES = 4


@dataclass
class Replay:
    #: The result of every project the paths reach; None when any project cannot be
    #: replayed (then the caller runs them all in full).
    results: list[ProjectResult] | None
    #: The few files a missed replay found changed, being parsed meanwhile for the full run.
    ahead: ParsedAhead | None = None
    #: Why the results are None: the first reason met, in words (``--timings``).
    missed: str = ""


@dataclass
class _Missed:
    """Why a project's last result cannot be replayed, and the files it found changed,
    if it is parsing them ahead."""

    reason: str
    ahead: ParsedAhead | None = None


def replay(paths: list[Path], config_path: Path | None, options: RunOptions) -> Replay:
    """Every project the paths reach, each replayed from its last run if it can be."""
    if options.record_baseline:
        return Replay(None, missed="--write-baseline records a full run")
    if not options.use_cache:
        return Replay(None, missed="the cache is off")
    if options.stdin is not None and not saved_as(*options.stdin):
        # An editor's unsaved buffer, known before the note is read: never replayed, but
        # parsed meanwhile, while the full run imports the rules and decodes the rest.
        return Replay(None, _parse_buffer_ahead(paths, config_path, options),
                      "an editor's unsaved buffer is never replayed")
    results = []
    for root, (config, targets) in sorted(plan(paths, config_path).items()):
        started = perf_counter()
        result = _replay_project(root, config, targets, options)
        if isinstance(result, _Missed):
            return Replay(None, result.ahead, f"{root}: {result.reason}")
        result.timings.append(Timing("replay", perf_counter() - started,
                                     "the last run's result: nothing decoded, no rule run"))
        results.append(result)
    return Replay(results)


def _parse_buffer_ahead(paths: list[Path], config_path: Path | None,
                        options: RunOptions) -> ParsedAhead | None:
    """Start parsing the editor's buffer for the full run, placed in its project."""
    assert options.stdin is not None
    projects = plan(paths, config_path)
    if len(projects) != 1:
        return None
    (root,) = projects
    stdin_path, source = options.stdin
    try:
        path = buffer_path(root, stdin_path)
    except ValueError:  # outside the project: the full run says so
        return None
    return parse_buffer_ahead(path, source, options.jobs)


def write_note(root: Path, config_path: Path | None, options: RunOptions,
               settings: dict[str, Any], rules_part: dict[str, Any], scope: Scope,
               cache_directory: Path) -> None:
    """Record what the next run needs to replay this one's result (the full run calls this
    whenever it stores or replays a result)."""
    if scope.overrides or options.record_baseline:
        return
    configuration = _configuration(root, config_path, options)
    invocation = _invocation(configuration, options)
    note = {
        "version": NOTE_VERSION,
        "configuration": configuration,
        "invocation": invocation,
        "settings": settings,
        "rules": rules_part,
        "files": _file_stamps(root, scope.paths),
    }
    target = _note_path(root, cache_directory, invocation)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        # ASCII JSON: a file name that is not UTF-8 travels as escaped surrogates.
        write_entry(target, json.dumps(note, separators=(",", ":")))
        for older in _project_notes(root, cache_directory)[KEPT_NOTES:]:
            unlink_quietly(older)
    except OSError:
        pass  # a cache that cannot be written costs speed, never correctness


def _replay_project(root: Path, config_path: Path | None, targets: list[Path],
                    options: RunOptions) -> ProjectResult | _Missed:
    """The project's result, replayed; or why it cannot be, with the files found changed
    being parsed ahead (if few)."""
    try:
        directory = options.cache_dir or configured_directory(root, config_path)
        configuration = _configuration(root, config_path, options)
        invocation = _invocation(configuration, options)
        note = _read_note(root, directory, invocation)
        if note["version"] != NOTE_VERSION:
            return _Missed("the replay note is another lion-lint's")
        if note["configuration"] != configuration:
            return _Missed(_INVOKED_OTHERWISE)
        # If only the rules or the exclusion asked for differ, the note's settings are still
        # this configuration's, so the files it found changed are still worth parsing ahead.
        selected_otherwise = note["invocation"] != invocation
        rules_part = note["rules"]
        code = rules_part["stamps"]
        if not selected_otherwise and stamps([filename for filename, _, _ in code]) != code:
            return _Missed("a module the rules run on changed since the last run")
        settings = SimpleNamespace(**{name: tuple(value) if isinstance(value, list) else value
                                      for name, value in note["settings"].items()})
        recorded_files = note["files"]
    except FileNotFoundError:
        return _Missed("no replay note (a first run here, or the cache was cleared)")
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError,
            ConfigError):
        return _Missed("the replay note cannot be read")
    scope = scope_of(root, config_path, settings, targets, options)
    if scope.overrides:
        return _Missed("an editor's unsaved buffer is never replayed")
    if scope.nested_reached(targets):
        return _Missed("a nested project lies within the targets")
    found_files = _file_stamps(root, scope.paths)
    if found_files != recorded_files:
        changed = _changed_since(found_files, recorded_files)
        problem = unusable_cache_directory(directory, root)
        if problem:
            return _Missed(f"the cache cannot be used: {problem}")
        cache = phase1.facts_cache(root, directory, settings)
        if not _all_parsed_before(root, changed, cache):
            ahead = parse_ahead(root, changed, cache, options.jobs,
                                getattr(settings, "max_file_size", 0))
            return _Missed(f"{plural(len(changed), 'file')} changed since the last run"
                           + (", parsed ahead" if ahead is not None else ""), ahead)
        # Touched, not changed (or changed back before any run parsed the change): the key
        # decides, as in the full run.
    if selected_otherwise:
        return _Missed(_INVOKED_OTHERWISE)
    found = phase1.survey(root, scope.paths, {}, phase1.options_for(
        root, settings, use_cache=True, cache_dir=directory), settings)
    files = found.fingerprint()
    if files is None or found.cache is None:
        return _Missed("the cache cannot be used")
    stored = ResultsCache(found.cache, root)
    replayed = stored.load(stored.key(files, config_path, rules_part, scope.unreadable),
                           scope.targets)
    if replayed is None:
        return _Missed("no stored result for these files and rules")
    result = ProjectResult(root=root, config=None, rules=[])
    result.diagnostics, result.suppressed = replayed
    settle_result(result, scope, empty_project(root, {}), set(rules_part["active"]),
                  config_path, settings.baseline, options)
    return result


def _changed_since(found_files: list[list[Any]], recorded_files: list[list[Any]]) -> list[str]:
    """The files new, or of another size or modification time, since the note."""
    recorded = {tuple(stamp) for stamp in recorded_files}
    return [path for path, size, mtime in found_files if (path, size, mtime) not in recorded]


def _all_parsed_before(root: Path, paths: list[str], cache: FactsCache) -> bool:
    """Whether the facts cache holds an entry for the content each of ``paths`` has now.
    Without one the file is to be parsed, most often an edit: read and hashed, the answer
    is no at the first such file. An entry found as the kept one (an edit undone) is made
    the current one again."""
    for path in paths:
        try:
            source = (root / path).read_bytes()
        except OSError:
            return False  # gone since: the full run says so
        if not cache.keep_current(path, content_hash(source)):
            return False
    return True


_INVOKED_OTHERWISE = ("invoked otherwise than the last run (the rules or files asked for, "
                      "the configuration, the interpreter or lion-lint)")


def _configuration(root: Path, config_path: Path | None, options: RunOptions) -> str:
    """A hash of everything, besides the files and the rules' code, that decides the
    settings and the facts: what the note's settings and file stamps stand for."""
    return _hashed({
        "lion-lint": lintkit.__version__,  # read now, as the facts salt reads it
        "python": sys.version,
        "executable": sys.executable,
        # Where plugins are imported from.
        "path": sys.path,
        "root": str(root),
        "config": [str(config_path), file_hash(config_path)],
        "pyproject": file_hash(root / "pyproject.toml"),
        "cache-dir": str(options.cache_dir) if options.cache_dir else None,
    })


def _invocation(configuration: str, options: RunOptions) -> str:
    """A hash of everything, besides the files and the rules' code, that decides which
    rules run with which options on which files: the configuration (its hash) and the
    command line's choice of rules and exclusion."""
    return _hashed({
        "configuration": configuration,
        "select": options.select,
        "extend-select": options.extend_select,
        "ignore": options.ignore,
        "force-exclude": options.force_exclude,
    })


def _hashed(material: dict[str, Any]) -> str:
    text = json.dumps(material, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def _read_note(root: Path, cache_directory: Path, invocation: str) -> Any:
    """This invocation's note; without one, the project's latest note (another
    invocation's, which tells at least which files changed). FileNotFoundError if the
    project has none."""
    try:
        return json.loads(_note_path(root, cache_directory, invocation).read_bytes())
    except FileNotFoundError:
        latest = _project_notes(root, cache_directory)[:1]
        if not latest:
            raise
        return json.loads(latest[0].read_bytes())


def _note_path(root: Path, cache_directory: Path, invocation: str) -> Path:
    return cache_directory / "replay" / f"{_project_place(root, cache_directory)}-{invocation}.json"


def _project_notes(root: Path, cache_directory: Path) -> list[Path]:
    """The project's notes, the latest written first."""
    prefix = f"{_project_place(root, cache_directory)}-"
    notes = []
    try:
        with os.scandir(cache_directory / "replay") as entries:
            for entry in entries:
                if entry.name.startswith(prefix) and entry.name.endswith(".json"):
                    try:
                        notes.append((entry.stat().st_mtime_ns, entry.name))
                    except OSError:
                        continue  # removed meanwhile by another run
    except OSError:
        return []
    return [cache_directory / "replay" / name for _, name in sorted(notes, reverse=True)]


def _project_place(root: Path, cache_directory: Path) -> str:
    return hashlib.blake2b(cache_place(root, cache_directory).encode("utf-8", "surrogatepass"),
                           digest_size=16).hexdigest()


def _file_stamps(root: Path, paths: list[str]) -> list[list[Any]]:
    return [[path, size, mtime] for path, (_, size, mtime)
            in zip(paths, stamps([os.path.join(root, path) for path in paths]))]
