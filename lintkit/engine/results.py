"""The results cache: a project's diagnostics, replayed when none of their inputs changed.

Phase 2 (the index and the project rules) is a pure function of the project's files, its
configuration and the rules' code. When a run finds every one of those as the last run
left them, it replays that run's diagnostics (waivers already applied) instead of decoding
every file's facts and running the rules again: a warm run then costs little more than
reading and hashing the files. Any change, however small, misses and runs phase 2 in full;
the replay is only ever of the identical computation.

The key covers:

- each file's content hash (or, for a file that was not parsed, why not) and the files'
  paths: a file added, removed or renamed changes it;
- the phase-1 salt (lion-lint, Python and LibCST versions);
- the configuration file's path and bytes (and the root's ``pyproject.toml``), the rules on
  offer and the rules selected;
- the content of every module the rules run on (lion-lint's own, the plugins' and any
  module loaded from inside the project), so that editing a rule during development is
  never answered from the cache;
- directories that could not be read.

Nothing in it says where the project or lion-lint lies: paths are the project's own
(relative to its root) or a module's within its installation, so a cache restored on
another machine, in another checkout directory or after reinstalling lion-lint (which
gives its files new modification times) still answers.

A run that reports on part of the project (``lion-lint src/pkg``) lets the rules skip the
rest (see ``Project.reports``), so its entry records the targets it *covers*: it is replayed
for those targets or any within them, while the whole project's entry serves any targets.

An editor's unsaved buffer (``--stdin-filename``) is never replayed nor stored (a buffer
that is the file as saved is the file: see ``scope_of``). Each entry is a file named by its
key, written atomically; a damaged or foreign entry is a miss, never an error. A project
keeps the entries of its last ``KEPT_RESULTS`` computed results, not only the latest: going
back to a state linted before (a branch checked out again, an edit undone, the working tree
that pre-commit stashed and restored) replays instead of running phase 2 again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lintkit.core.diagnostics import Diagnostic, Location
from lintkit.core.project import within
from lintkit.core.suppressions import Suppressed
from lintkit.engine.cache import FactsCache, file_hash, unlink_quietly, write_entry

if TYPE_CHECKING:  # a replayed run computes the key without importing the rule API
    from lintkit.core.rule import Rule

#: Bump when the shape of an entry or of its key changes.
RESULTS_VERSION = 4
#: How many computed results a project keeps, the latest written (each is its diagnostics:
#: a few KB, 730 KB for the standard library's).
KEPT_RESULTS = 8


class ResultsCache:
    """The latest phase-2 results of one project, beside its facts cache."""

    def __init__(self, facts_cache: FactsCache, root: Path) -> None:
        place = hashlib.blake2b(facts_cache.place.encode("utf-8", "surrogatepass"),
                                digest_size=16).hexdigest()
        self.directory = facts_cache.directory / f"results-{facts_cache.salt_id}" / place
        self.salt = facts_cache.salt
        self.root = root
        self._prepare = facts_cache.prepare

    def rules_part(self, available: Sequence[type[Rule]], active: Sequence[Rule]) -> dict[str, Any]:
        """The part of the key that comes from the rules: those on offer, those selected,
        and the code they run on (each module's name within its installation and the hash
        of its bytes). Plain data: a replay note keeps it, so that a replayed run can make
        the key without importing a rule. ``stamps`` is no part of the key: the size and
        modification time of each module, by which the note tells that the code is as it
        was without reading it."""
        files = _code_files(self.root, available)
        return {
            "available": [f"{r.code}:{r.__module__}.{r.__qualname__}" for r in available],
            "active": sorted(r.code for r in active),
            "code": sorted([name, file_hash(Path(filename))] for filename, name in files.items()),
            "stamps": stamps(sorted(files)),
        }

    def key(self, files: Sequence[tuple[str, str]], config_path: Path | None,
            rules_part: Mapping[str, Any], unreadable: Sequence[tuple[str, str]]) -> str:
        """One hash over everything the project's diagnostics depend on."""
        # The configuration file, and the root's pyproject.toml (rules point diagnostics
        # about configuration at its lines) when the configuration comes from elsewhere.
        configs = [config_path, self.root / "pyproject.toml"]
        material = {
            "version": RESULTS_VERSION,
            "salt": self.salt,
            "config": [[_project_relative(path, self.root), file_hash(path)]
                       for path in configs],
            "available": rules_part["available"],
            "active": rules_part["active"],
            "code": rules_part["code"],
            "unreadable": sorted(unreadable),
            "files": list(files),
        }
        text = json.dumps(material, separators=(",", ":"), ensure_ascii=False)
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()

    def load(self, key: str, targets: Sequence[str]
             ) -> tuple[list[Diagnostic], list[Suppressed]] | None:
        """The stored result for ``key`` if it covers ``targets``, or None (absent, stale,
        narrower, damaged or foreign)."""
        try:
            entry = json.loads(self._entry(key).read_bytes())
            if entry["key"] != key:
                return None
            covered = entry["covers"]
            if not all(isinstance(c, str) for c in covered) or not all(
                    within(target, covered) for target in targets):
                return None
            diagnostics = [Diagnostic.from_data(d) for d in entry["diagnostics"]]
            suppressed = [Suppressed(Diagnostic.from_data(d), reason, Location.from_data(at))
                          for d, reason, at in entry["suppressed"]]
        except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None
        return diagnostics, suppressed

    def store(self, key: str, diagnostics: Sequence[Diagnostic],
              suppressed: Sequence[Suppressed], covers: Sequence[str]) -> None:
        """Keep this result, computed for the targets ``covers``, for the next run; a cache
        that cannot be written is skipped."""
        entry = {
            "key": key,
            "covers": list(covers),
            "diagnostics": [d.to_data() for d in diagnostics],
            "suppressed": [[s.diagnostic.to_data(), s.reason, s.comment.to_data()]
                           for s in suppressed],
        }
        try:
            self._prepare()
            self.directory.mkdir(parents=True, exist_ok=True)
            write_entry(self._entry(key), json.dumps(entry, separators=(",", ":")))
        except OSError:
            return
        self._keep_latest(self._entry(key).name)

    def _entry(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def _keep_latest(self, written: str) -> None:
        """Remove all but the ``KEPT_RESULTS`` latest written entries, ``written`` (the
        entry just stored) among them, and the one entry of the layout before
        (``<place>.json`` beside this directory)."""
        unlink_quietly(self.directory.with_suffix(".json"))
        try:
            others = [entry for entry in os.scandir(self.directory)
                      if entry.name.endswith(".json") and entry.name != written]
            others.sort(key=lambda entry: entry.stat().st_mtime_ns, reverse=True)
        except OSError:
            return  # another run is writing or removing: the next store tidies up
        for entry in others[KEPT_RESULTS - 1:]:
            unlink_quietly(entry.path)


def _code_files(root: Path, available: Sequence[type[Rule]]) -> dict[str, str]:
    """The code the rules run on, each file with a name that does not say where it lies:
    every module of lion-lint and of each package a rule on offer comes from (loaded or
    not: a rule may import its helpers lazily), named within its package
    (``lintkit/core/index.py``); and every module loaded from inside the project (a local
    plugin's), named from the project root."""
    packages = {"lintkit", *(r.__module__.rpartition(".")[0] or r.__module__
                             for r in available)}
    # A package inside another listed one (lintkit.core in lintkit) is walked with it.
    outermost = {name for name in packages
                 if not any(name.startswith(f"{other}.") for other in packages)}
    files: dict[str, str] = {}
    for name in sorted(outermost):
        module = sys.modules.get(name)
        for directory in getattr(module, "__path__", None) or ():
            for filename in _python_files(directory):
                relative = os.path.relpath(filename, directory).replace(os.sep, "/")
                files.setdefault(filename, f"{name}/{relative}")
    for name in sorted({r.__module__ for r in available}):
        filename = getattr(sys.modules.get(name), "__file__", None)
        if filename:
            files.setdefault(filename, f"{name}.py")
    inside = str(root.resolve())
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if filename and os.path.abspath(filename).startswith(inside + os.sep):
            relative = os.path.relpath(os.path.abspath(filename), inside)
            files.setdefault(filename, "project:" + relative.replace(os.sep, "/"))
    return files


def _project_relative(path: Path | None, root: Path) -> str:
    """A configuration file's path from the project root ("" for none), or as given when it
    lies outside."""
    if path is None:
        return ""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def stamps(filenames: Sequence[str]) -> list[list[Any]]:
    """[name, size, modification time] of each file ([name, -1, -1] if it is gone)."""
    found: list[list[Any]] = []
    for filename in filenames:
        try:
            status = os.stat(filename)
            found.append([filename, status.st_size, status.st_mtime_ns])
        except OSError:
            found.append([filename, -1, -1])
    return found


def _python_files(directory: str) -> list[str]:
    found: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return found
    for entry in entries:
        if entry.name.endswith(".py"):
            found.append(entry.path)
        elif entry.is_dir(follow_symlinks=False) and entry.name != "__pycache__":
            found.extend(_python_files(entry.path))
    return found
