"""The baseline: today's diagnostics, recorded so that a gate can be switched on for new code.

An entry names a file, a rule code, the qualified name of the enclosing definition
(``Diagnostic.scope``) and a fingerprint of the offending code (its source line without
its comment, whitespace normalised), with how many diagnostics share that key. Line numbers
are never part of the key, so an entry survives edits elsewhere in the file and to the
line's comment; counting duplicates makes a second identical violation in the same scope
new. Entries that match fewer diagnostics than they record are reported as LL903, so the
baseline only shrinks.

The file is JSON with one entry per line, sorted, so that it is reviewable in a diff. Entry
paths are relative to the directory that holds the baseline file.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import tokenize
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lintkit.config.locate import ConfigError
from lintkit.core.diagnostics import Diagnostic, Location

FORMAT_VERSION = 1
STALE_CODE = "LL903"
STALE_NAME = "stale-baseline-entry"
#: Never recorded: a file that does not parse must never pass, and stale entries are the
#: baseline's own diagnostics.
UNRECORDED = frozenset({"LL000", STALE_CODE})
_FIELDS = ("path", "code", "scope", "fingerprint")
_HINT = "(fix it, or rewrite it with --write-baseline)"


@dataclass(frozen=True, order=True, slots=True)
class Key:
    """What identifies a diagnostic across edits. ``path`` is POSIX, relative to the
    baseline's directory in a file and to the project root in a run."""

    path: str
    code: str
    scope: str
    fingerprint: str

    def rebased(self, path: str) -> Key:
        return Key(path, self.code, self.scope, self.fingerprint)


@dataclass
class Baseline:
    path: Path
    counts: dict[Key, int]
    #: Where each entry is written: (line, first column, end column), 1-based.
    spans: dict[Key, tuple[int, int, int]]

    @property
    def directory(self) -> Path:
        return self.path.parent


def fingerprint(line: str) -> str:
    """The code of a source line, its comment dropped and its whitespace normalised: what
    an entry matches, so that editing a comment on the line keeps the entry."""
    return " ".join(_without_comment(line).split())


def _without_comment(line: str) -> str:
    if "#" not in line:
        return line
    try:  # a "#" inside a string is not a comment: ask the tokenizer
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT:
                return line[:token.start[1]]
    except (tokenize.TokenError, SyntaxError):
        pass  # a line that opens a string or bracket it does not close: no comment found
    return line


def key_for(diagnostic: Diagnostic, lines: list[str]) -> Key:
    """The key of a diagnostic, given its file's lines."""
    number = diagnostic.location.line
    text = lines[number - 1] if 0 < number <= len(lines) else ""
    return Key(diagnostic.path, diagnostic.code, diagnostic.scope, fingerprint(text))


def recordable(diagnostic: Diagnostic) -> bool:
    return diagnostic.code not in UNRECORDED


# --- reading -----------------------------------------------------------------------------------

def load(path: Path) -> Baseline:
    """Read and validate a baseline file; any problem is a ConfigError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: baseline file not found (create it with "
                          "--write-baseline)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the baseline: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}:{error.lineno}: malformed baseline: invalid JSON "
                          f"({error.msg}) {_HINT}") from None
    entries = _entries(path, data)
    spans = _entry_spans(text, len(entries))
    counts: dict[Key, int] = {}
    where: dict[Key, tuple[int, int, int]] = {}
    written: set[Key] = set()
    for number, (entry, span) in enumerate(zip(entries, spans), 1):
        key = _entry_key(path, number, span[0], entry)
        if key in written:
            raise ConfigError(f"{path}:{span[0]}: malformed baseline: entry {number} repeats "
                              f"an earlier entry's path, code, scope and fingerprint {_HINT}")
        written.add(key)
        # Entries written before fingerprints dropped comments hold them: read the same way
        # as a line is now, such entries still match (and ones that differed only in a
        # comment count together).
        key = replace(key, fingerprint=fingerprint(key.fingerprint))
        counts[key] = counts.get(key, 0) + entry["count"]
        where.setdefault(key, span)
    return Baseline(path, counts, where)


def _entries(path: Path, data: Any) -> list[Any]:
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: malformed baseline: expected a JSON object with "
                          f"'version' and 'entries' {_HINT}")
    if data.get("version") != FORMAT_VERSION:
        raise ConfigError(f"{path}: malformed baseline: 'version' must be {FORMAT_VERSION}, "
                          f"got {data.get('version')!r} {_HINT}")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: malformed baseline: 'entries' must be a list {_HINT}")
    return entries


def _entry_key(path: Path, number: int, line: int, entry: Any) -> Key:
    where = f"{path}:{line}: malformed baseline: entry {number}"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be an object {_HINT}")
    unknown = sorted(set(entry) - {*_FIELDS, "count"})
    if unknown:
        raise ConfigError(f"{where} has unknown key '{unknown[0]}' {_HINT}")
    for name in _FIELDS:
        if not isinstance(entry.get(name), str):
            raise ConfigError(f"{where}: '{name}' must be a string {_HINT}")
    count = entry.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ConfigError(f"{where}: 'count' must be a positive integer, got {count!r} {_HINT}")
    return Key(*(entry[name] for name in _FIELDS))


def _entry_spans(text: str, expected: int) -> list[tuple[int, int, int]]:
    """Where each entry is, as :func:`write` lays them out (one per line); the first line
    for each when the file was laid out otherwise."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip().rstrip(",")
        if stripped.startswith("{") and '"code"' in stripped:
            start = len(line) - len(line.lstrip()) + 1
            found.append((number, start, start + len(stripped)))
    return found if len(found) == expected else [(1, 1, 1)] * expected


# --- applying ---------------------------------------------------------------------------------

def apply(baseline: Baseline, diagnostics: list[Diagnostic], keys: Mapping[Diagnostic, Key],
          root: Path, in_project: Any, active: set[str]) -> tuple[list[Diagnostic], int, list[Diagnostic]]:
    """Hold back the diagnostics the baseline records. Returns what to report, how many were
    held back, and an LL903 diagnostic for each entry left unmatched.

    ``keys`` gives each diagnostic's key (project-relative path); ``in_project(path)`` says
    whether a project-relative path was checked in this run, so that entries for files
    outside the run are not called stale; entries of rules that did not run are not either.
    """
    budget = {}
    for key, count in baseline.counts.items():
        relative = _to_project(baseline, root, key.path)
        if relative is not None:
            budget[key.rebased(relative)] = (key, count)
    used: Counter[Key] = Counter()
    kept: list[Diagnostic] = []
    held = 0
    for diagnostic in diagnostics:  # in report order, so the later duplicates are new
        key = keys.get(diagnostic)
        if key is not None and key in budget and used[key] < budget[key][1]:
            used[key] += 1
            held += 1
        else:
            kept.append(diagnostic)
    stale = []
    if STALE_CODE in active:
        for key, (original, count) in sorted(budget.items()):
            if used[key] < count and key.code in active and in_project(key.path):
                stale.append(_stale(baseline, root, original, count, used[key]))
    return kept, held, stale


def _to_project(baseline: Baseline, root: Path, path: str) -> str | None:
    relative = Path(os.path.relpath(baseline.directory / path, root)).as_posix()
    return None if relative == ".." or relative.startswith("../") else relative


def _stale(baseline: Baseline, root: Path, key: Key, count: int, matched: int) -> Diagnostic:
    where = f"{key.code} in {key.path} ({key.scope or 'module level'}): `{key.fingerprint}`"
    if matched:
        message = (f"baseline entry records {count} diagnostics but only {matched} remain: "
                   f"{where}; lower its count or rewrite the baseline with --write-baseline")
    else:
        message = (f"baseline entry matches nothing: {where}; remove it or rewrite the "
                   "baseline with --write-baseline")
    line, column, end_column = baseline.spans.get(key, (1, 1, 1))
    path = Path(os.path.relpath(baseline.path, root)).as_posix()
    return Diagnostic(Location(path, line, column, line, end_column), STALE_CODE, STALE_NAME,
                      message)


# --- writing ----------------------------------------------------------------------------------

def entries_for(results: Iterable[tuple[Path, list[Diagnostic], Mapping[Diagnostic, Key]]],
                directory: Path) -> Counter[Key]:
    """Count the keys of every recordable diagnostic, paths relative to ``directory``."""
    counts: Counter[Key] = Counter()
    for root, diagnostics, keys in results:
        for diagnostic in diagnostics:
            key = keys.get(diagnostic)
            if key is not None and recordable(diagnostic):
                path = Path(os.path.relpath(root / key.path, directory)).as_posix()
                counts[key.rebased(path)] += 1
    return counts


def render(counts: Mapping[Key, int]) -> str:
    """The file's text: sorted entries, one per line, so a change is a one-line diff."""
    lines = [json.dumps({"path": k.path, "code": k.code, "scope": k.scope,
                         "fingerprint": k.fingerprint, "count": counts[k]}, ensure_ascii=False)
             for k in sorted(counts)]
    body = ",\n".join(f"    {line}" for line in lines)
    entries = f"[\n{body}\n  ]" if lines else "[]"
    return f'{{\n  "version": {FORMAT_VERSION},\n  "entries": {entries}\n}}\n'


def write(path: Path, counts: Mapping[Key, int]) -> None:
    """Replace the file atomically: a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(render(counts))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --- the engine's step --------------------------------------------------------------------------

def configured(root: Path, config_path: Path | None, setting: str | None) -> Path | None:
    """The baseline ``[tool.lion-lint] baseline`` names (relative to the project root)."""
    if not setting:
        return None
    path = root / setting
    if not path.is_file():
        raise ConfigError(f"{config_path}: [tool.lion-lint] key 'baseline': file not found: "
                          f"{path} (create it with --write-baseline)")
    return path


def settle(diagnostics: list[Diagnostic], lines_of: Any, root: Path, chosen: Path | None,
           record: bool, checked: Any, active: set[str],
           ) -> tuple[list[Diagnostic], int, dict[Diagnostic, Key]]:
    """The run's last step: with ``record``, key every diagnostic (for --write-baseline);
    with a ``chosen`` baseline, hold back what it records and report its stale entries.
    Returns (diagnostics to report, how many were held back, keys when recording)."""
    if not record and chosen is None:
        return diagnostics, 0, {}
    keys = {d: key_for(d, lines_of(d.path)) for d in diagnostics if recordable(d)}
    if record:
        return diagnostics, 0, keys
    assert chosen is not None
    kept, held, stale = apply(load(chosen), diagnostics, keys, root, checked, active)
    return kept + stale, held, {}


def keep_unchecked(previous: Baseline, fresh: Counter[Key], targets: list[Path],
                   codes_by_root: Mapping[Path, set[str]]) -> Counter[Key]:
    """``fresh`` plus the entries of ``previous`` that this run did not check: those of
    files outside its ``targets``, and those of rules it did not run (``codes_by_root``: the
    codes each project's run had selected), so that rewriting the baseline for part of a
    project, or for some of its rules, keeps the rest."""
    merged = Counter(fresh)
    roots = sorted(codes_by_root, key=lambda root: len(root.parts), reverse=True)
    for key, count in previous.counts.items():
        absolute = Path(os.path.abspath(previous.directory / key.path))
        if not any(absolute == t or t in absolute.parents for t in targets):
            merged[key] += count
            continue
        # The deepest project holding the file is the one whose rules ran on it (project
        # roots are resolved, so the file's path is too).
        real = Path(os.path.realpath(absolute))
        root = next((r for r in roots if r in real.parents), None)
        if root is None or key.code not in codes_by_root[root]:
            merged[key] += count
    return merged
