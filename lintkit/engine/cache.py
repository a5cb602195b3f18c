"""The content cache of phase-1 results: one JSON entry per project file.

An entry holds a file's facts (and so its per-file diagnostics: the parse error and the
suppression comments) and is valid for exactly one file content under one *salt*: lion-lint's
version, ``FACTS_VERSION``, the Python and LibCST versions, and the settings that change what
phase 1 extracts. The salt names the directory the entries live in and is written inside
each entry; the file's path and the hash of its bytes are written there too. An entry whose
recorded salt, path or hash differs from what is asked, or that does not decode, is a miss:
it is rebuilt and overwritten, never trusted and never an error.

Entries are written to a temporary file in the same directory and renamed into place, so a
reader sees a whole entry or none, and two runs at once cannot leave a torn one. A cache
that cannot be written (a read-only checkout) costs speed, never correctness.

Layout::

    <cache-dir>/CACHEDIR.TAG, .gitignore     markers (backup tools and git skip the directory)
    <cache-dir>/facts-<salt>/<xx>/<name>.json one entry per project file
    <cache-dir>/facts-<salt>/<xx>/<name>.json.prev   the entry it replaced (the file's
                                             content before; made current again when
                                             the file has that content back)
    <cache-dir>/facts-<salt>/used            touched by each run that writes under the salt
    <cache-dir>/results-<salt>/<place>/<key>.json
                                             a project's last results (lintkit.engine.results)
    <cache-dir>/replay/<place>-<invocation>.json
                                             how to replay it unvalidated, one per way the
                                             project is invoked (lintkit.engine.replay)

``<name>`` hashes the file's project-relative path together with where the project lies
relative to the cache directory, so that projects sharing one ``--cache-dir`` keep apart.
The entries of a salt that no run has written to for 30 days are removed by the next run
that writes (``_remove_stale_salts``): an upgrade does not leave its predecessor's behind.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

#: The first line of CACHEDIR.TAG (https://bford.info/cachedir/); `clean` deletes only a
#: directory that carries it with our note, so a mistyped --cache-dir cannot cost a tree.
CACHEDIR_SIGNATURE = "Signature: 8a477f597d28d172789f06886806bc55"
_TAG_NOTE = "# This directory is lion-lint's cache of phase-1 results; `lion-lint clean` removes it."


def content_hash(source: bytes) -> str:
    return hashlib.blake2b(source, digest_size=20).hexdigest()


def file_hash(path: Path | None) -> str:
    """The content hash of a file ("" for no file, "!errno" for one that cannot be read)."""
    if path is None:
        return ""
    try:
        return content_hash(path.read_bytes())
    except OSError as error:
        return f"!{error.errno}"


def libcst_fingerprint() -> str:
    """LibCST's version, found without importing LibCST (a warm run never imports it)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("libcst")
    except (ImportError, ValueError):
        return "missing"
    if spec is None or not spec.submodule_search_locations:
        return "missing"
    for location in spec.submodule_search_locations:
        try:
            return content_hash((Path(location) / "_version.py").read_bytes())
        except OSError:
            continue
    return "unknown"


def cache_salt(lion_lint_version: str, facts_version: int,
               settings: Mapping[str, Any]) -> dict[str, Any]:
    """Everything besides a file's bytes that decides its phase-1 result."""
    return {
        "lion-lint": lion_lint_version,
        "facts": facts_version,
        # CPython words syntax errors and tokenizes suppression comments; LibCST parses.
        "python": list(sys.version_info[:3]),
        "libcst": libcst_fingerprint(),
        "settings": dict(settings),
    }


#: Ends an entry, before the CRC-32 of its facts' JSON. Only this can hold it unescaped: in
#: the facts every quote of a string value is escaped.
_CHECK = b',"check":'


class FactsCache:
    """Phase-1 results of one project's files under one salt."""

    def __init__(self, directory: Path, root: Path, salt: Mapping[str, Any]) -> None:
        self.directory = directory
        self.salt = json.dumps(dict(salt), sort_keys=True, separators=(",", ":"))
        self.salt_id = hashlib.blake2b(self.salt.encode(), digest_size=8).hexdigest()
        self.entries = directory / f"facts-{self.salt_id}"
        self.place = cache_place(root, directory)
        self._prepared = False

    def entry_path(self, path: str) -> Path:
        name = hashlib.blake2b(f"{self.place}\0{path}".encode("utf-8", "surrogatepass"),
                               digest_size=16).hexdigest()
        return self.entries / name[:2] / f"{name}.json"

    def load(self, path: str, digest: str) -> dict[str, Any] | None:
        """The facts data cached for ``path`` with content hash ``digest``, or None.

        The entry must start with this salt, path and hash, exactly as ``encode`` writes
        them, and its facts must match their checksum: facts are read lazily in part (a
        call's arguments stay text until a rule reads them), so damage that still parses
        as JSON must be caught here, where a miss costs a parse, not in a rule."""
        header = self._header(path, digest).encode()
        current, previous = self._entry_and_previous(path)
        for entry in (current, previous):
            try:
                raw = entry.read_bytes()
            except OSError:
                continue  # absent
            if raw.startswith(header):
                facts = _checked_facts(raw, len(header), path)
                if facts is not None and entry is previous:
                    self._make_current(path, raw)
                return facts
        return None  # no entry of this content: a miss

    def has_entry(self, path: str, digest: str) -> bool:
        """Whether an entry for this content seems to be there: its header alone is read
        (``load`` still checks the whole entry)."""
        header = self._header(path, digest).encode()
        return any(_begins_with(entry, header) for entry in self._entry_and_previous(path))

    def keep_current(self, path: str, digest: str) -> bool:
        """``has_entry``, and when the entry is the kept (previous) one, make it the current
        one again: a file edited and then undone has its original content back, and the
        edit's entry becomes the kept one. Without this a second, different edit would
        displace the original, and undoing that one too would parse again (and miss the
        stored result). A run that reads an entry from the kept one (``load``) does this
        itself."""
        header = self._header(path, digest).encode()
        current, previous = self._entry_and_previous(path)
        if _begins_with(current, header):
            return True
        try:
            raw = previous.read_bytes()
        except OSError:
            return False
        if not raw.startswith(header):
            return False
        self._make_current(path, raw)
        return True

    def _make_current(self, path: str, raw: bytes) -> None:
        # Stored again as new: the current entry is moved aside to be the kept one. Two
        # runs doing this at once may each move the other's aside, so that one content is
        # kept twice and the other lost: a parse later, never a wrong entry (each is
        # checked against its header when read).
        try:
            text = raw.decode("ascii")  # as encoded: JSON escapes the rest
        except UnicodeDecodeError:
            return  # damaged: left for load to refuse
        self.store_text(path, text)

    def _entry_and_previous(self, path: str) -> tuple[Path, Path]:
        """Where ``path``'s entry is, and where the entry it replaced is kept: a file's
        last two contents answer, so an edit undone or a branch checked out again (one
        edit away) is not parsed again."""
        entry = self.entry_path(path)
        return entry, entry.with_name(entry.name + _PREVIOUS)

    def encode(self, path: str, digest: str, facts_json: str) -> str:
        """An entry's text around facts already encoded as JSON (workers encode them once),
        ending with the checksum of their bytes as written (UTF-8)."""
        check = zlib.crc32(facts_json.encode("utf-8"))
        return f"{self._header(path, digest)}{facts_json}{_CHECK.decode()}{check}}}"

    def _header(self, path: str, digest: str) -> str:
        fields = json.dumps({"salt": self.salt, "path": path, "hash": digest},
                            separators=(",", ":"))
        return f'{fields[:-1]},"facts":'

    def store_text(self, path: str, text: str) -> bool:
        """Write one encoded entry atomically; whether it was written (a cache that cannot
        be written is skipped)."""
        target, previous = self._entry_and_previous(path)
        if not self.ready():
            return False
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.replace(target, previous)
            except FileNotFoundError:
                pass  # the file's first entry
            write_entry(target, text)
        except OSError:
            return False
        return True

    def ready(self) -> bool:
        """Whether the cache is prepared for writing (see ``prepare``): False when it
        cannot be written."""
        try:
            self.prepare()
        except OSError:
            return False
        return True

    def prepare(self) -> None:
        """Before a run's first write: the markers, this salt marked as used now, and the
        entries of salts left unused for ``STALE_SALT_SECONDS`` removed."""
        if self._prepared:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# Created by lion-lint.\n*\n"),
                           ("CACHEDIR.TAG", f"{CACHEDIR_SIGNATURE}\n{_TAG_NOTE}\n")):
            marker = self.directory / name
            if not marker.exists():
                write_entry(marker, text)
        self.entries.mkdir(exist_ok=True)
        (self.entries / _USED).touch()
        swept = self.entries / _SWEPT
        if _age(swept) > SWEEP_SECONDS:  # once a day at most: the sweep reads every directory
            _remove_abandoned_temporaries(self.directory)
            swept.touch()
        _remove_stale_salts(self.directory, self.salt_id)
        self._prepared = True


def cache_place(root: Path, directory: Path) -> str:
    """Where a project lies relative to its cache directory: what keeps apart the entries of
    projects that share one."""
    try:
        return os.path.relpath(root, directory)
    except ValueError:  # another drive (Windows): the absolute path tells projects apart
        return str(root)


def is_cache_directory(directory: Path) -> bool:
    try:
        tag = (directory / "CACHEDIR.TAG").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return tag.startswith(CACHEDIR_SIGNATURE) and "lion-lint" in tag


def unusable_cache_directory(directory: Path, root: Path) -> str | None:
    """Why ``directory`` cannot hold a project's cache, or None when it can. lion-lint
    tags its cache directory, git-ignores all of it and ``clean`` deletes it, so it takes
    only a directory it made, a new one or an empty one."""
    if root.resolve().is_relative_to(directory.resolve()):
        return "it is the project's own directory, or contains it"
    if not directory.exists():
        return None
    if not directory.is_dir():
        return "it is not a directory"
    if is_cache_directory(directory):
        return None
    try:
        next(directory.iterdir())
    except StopIteration:
        return None
    except OSError:
        return None  # unreadable: writing fails too, and the run goes on without a cache
    return "it holds files, and no CACHEDIR.TAG says it is lion-lint's cache"


#: A salt whose entries no run has written to for this long is someone's past (an older
#: lion-lint, Python or LibCST): the next run that writes under another salt removes them.
STALE_SALT_SECONDS = 30 * 24 * 3600
#: In each salt's facts directory: touched by every run that writes under that salt.
_USED = "used"


def _remove_stale_salts(directory: Path, current: str) -> None:
    """Delete the facts and results of every salt but ``current`` that no run has written
    to for ``STALE_SALT_SECONDS``.

    Each lion-lint, Python or LibCST version writes under a salt of its own, so without
    this every upgrade would leave a full copy of the project's facts behind (97 MB for the
    standard library). A salt still in use by another installation that writes (a
    pre-commit environment beside a virtual environment) is kept; one that has only
    replayed for a month loses its entries and parses once more. A directory another
    process is writing into is left as it is (what cannot be removed is skipped)."""
    try:
        names = [entry.name for entry in os.scandir(directory)]
    except OSError:
        return
    salts = {name.partition("-")[2] for name in names
             if name.startswith(("facts-", "results-"))} - {current}
    for salt in sorted(salts):
        if _unwritten_for(directory, salt) > STALE_SALT_SECONDS:
            for kind in ("facts", "results"):
                shutil.rmtree(directory / f"{kind}-{salt}", ignore_errors=True)


#: How the name of a temporary file that ``write_entry`` renames into place begins.
_TEMPORARY = ".tmp-"
#: A temporary file this old was left by a process killed as it wrote
#: (a worker stopped mid-batch, an editor's run cut short); a live write takes milliseconds.
ABANDONED_SECONDS = 3600
#: How often a writing run looks for abandoned temporary files, and where (in each salt's
#: facts directory) it notes when it last did.
SWEEP_SECONDS = 24 * 3600
_SWEPT = "swept"


def _age(path: Path) -> float:
    """Seconds since ``path`` was last modified (infinite when it is absent)."""
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return float("inf")


def _remove_abandoned_temporaries(directory: Path) -> None:
    """Delete the temporary files that processes killed mid-write left anywhere in the
    cache: nothing else ever would, and each is up to a whole entry."""
    for parent, _, names in os.walk(directory):
        for name in names:
            if name.startswith(_TEMPORARY) and _age(Path(parent, name)) > ABANDONED_SECONDS:
                unlink_quietly(os.path.join(parent, name))


def _unwritten_for(directory: Path, salt: str) -> float:
    """Seconds since a run last wrote under ``salt``: by its stamp, or the latest change to
    its directories (a results entry replaced, a stamp lost)."""
    return min(_age(path) for path in (directory / f"facts-{salt}" / _USED,
                                       directory / f"facts-{salt}", directory / f"results-{salt}"))


def _begins_with(entry: Path, header: bytes) -> bool:
    """Whether the file ``entry`` is there and starts with ``header`` (nothing else read)."""
    try:
        with open(entry, "rb") as stream:
            return stream.read(len(header)) == header
    except OSError:
        return False


def _checked_facts(raw: bytes, start: int, path: str) -> dict[str, Any] | None:
    """The facts of an entry whose header (``start`` bytes) is right, if they match their
    checksum and parse; None for a truncated, corrupt or foreign entry (a miss)."""
    try:
        cut = raw.rfind(_CHECK, start)
        if cut < 0 or not raw.endswith(b"}"):
            return None
        body = raw[start:cut]
        if int(raw[cut + len(_CHECK):-1]) != zlib.crc32(body):
            return None
        facts = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return facts if isinstance(facts, dict) and facts.get("path") == path else None


#: The suffix of the entry a file's new entry replaced (its previous content's facts).
_PREVIOUS = ".prev"

#: What lion-lint writes at the top of its cache directory (the temporary files included).
_CACHE_ENTRIES = ("CACHEDIR.TAG", ".gitignore", "replay", "facts-*", "results-*",
                  f"{_TEMPORARY}*")


def remove_cache(directory: Path) -> bool:
    """Delete a lion-lint cache directory: True if there was one, False if absent.

    Raises ValueError for a directory that is not a lion-lint cache, or that holds anything
    lion-lint did not write (nothing is deleted).
    """
    if not directory.exists():
        return False
    if not directory.is_dir() or not is_cache_directory(directory):
        raise ValueError(f"{directory} is not a lion-lint cache directory (no CACHEDIR.TAG "
                         "written by lion-lint); not removing it")
    # A tag alone is not enough: lion-lint 0.1 tagged whatever directory cache-dir named.
    foreign = sorted(entry.name for entry in directory.iterdir()
                     if not any(fnmatch.fnmatchcase(entry.name, name) for name in _CACHE_ENTRIES))
    if foreign:
        raise ValueError(f"{directory} holds files lion-lint did not write ({', '.join(foreign[:3])}"
                         f"{', ...' if len(foreign) > 3 else ''}); not removing it")
    shutil.rmtree(directory)
    return True


def cache_directories(paths: Sequence[Path], config_path: Path | None) -> list[Path]:
    """The cache directories (``cache-dir`` of each) of the projects the paths belong to,
    and of the projects nested below them, which a run on the paths lints and caches on
    their own."""
    from lintkit.config.locate import find_project_root
    from lintkit.engine.discovery import projects_below

    found: list[Path] = []
    for path in paths:
        absolute = path.absolute()
        config: Path | None
        if config_path is not None:
            root, config = config_path.absolute().parent, config_path.absolute()
        else:
            root, config = find_project_root(absolute)
        projects: list[tuple[Path, Path | None]] = [(root, config)]
        if absolute.is_dir():
            projects += [(nested, nested / "pyproject.toml") for nested in projects_below(absolute)]
        for project_root, project_config in projects:
            directory = configured_directory(project_root, project_config)
            if directory not in found:
                found.append(directory)
    return found


def configured_directory(root: Path, config: Path | None) -> Path:
    """A project's cache directory as its raw ``cache-dir`` names it (no validation, so no
    pydantic: `clean` and a replayed run use it). Raises ConfigError if it is not a string."""
    from lintkit.config.locate import DEFAULT_CACHE_DIR, ConfigError, read_tool_table

    table = (read_tool_table(config) if config is not None else None) or {}
    setting = table.get("cache-dir", DEFAULT_CACHE_DIR)
    if not isinstance(setting, str):
        raise ConfigError(f"{config}: [tool.lion-lint] key 'cache-dir': expected a string "
                          f"(got {setting!r})")
    return root / setting


def write_entry(target: Path, text: str) -> None:
    """Write a cache file atomically: a reader sees the old text or the new, never a part."""
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=_TEMPORARY)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would shut out a CI cache's other users
        os.replace(temporary, target)
    except BaseException:
        unlink_quietly(temporary)
        raise


def unlink_quietly(path: str | os.PathLike[str]) -> None:
    """Remove a file, if it can be: one already gone (another run removed it) or not
    removable is left to the next run that tidies up."""
    try:
        os.unlink(path)
    except OSError:
        pass
