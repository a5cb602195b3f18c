"""What a run is asked, what it gives back per project, and the steps every project's run
shares, whether it computes its result (``lintkit.engine.run``) or replays the last one
(``lintkit.engine.replay``): which projects the paths reach, which files a project's run
covers, and the last step (keep what the targets reach, apply the baseline).

Nothing here imports pydantic, the settings model or the rule API: a replayed run uses
this module and never loads them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lintkit.config.locate import find_project_root
from lintkit.core.diagnostics import Diagnostic, sort_diagnostics
from lintkit.core.index import ProjectIndex
from lintkit.core.project import Project, within
from lintkit.core.suppressions import Suppressed
from lintkit.engine import baseline as baselines
from lintkit.engine.discovery import discover, is_excluded, is_included, named_path

if TYPE_CHECKING:
    from lintkit.config.load import LoadedConfig
    from lintkit.core.rule import Rule
    from lintkit.engine.ahead import ParsedAhead


class InternalError(Exception):
    """A bug in lion-lint or in a rule: never mistaken for a clean run. ``plugin`` names
    the project's own rule module when the bug is there, not in lion-lint."""

    def __init__(self, message: str, plugin: str | None = None) -> None:
        super().__init__(message)
        self.plugin = plugin


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
    #: Keep the last project a run builds in its result (``ProjectResult.project``) rather
    #: than free it: a caller that ends the process next (the CLI) saves freeing its facts
    #: object by object, a quarter of a second on the standard library. A run over nested
    #: projects frees each earlier one before it lints the next.
    keep_project: bool = False
    #: Files a replay that missed is parsing into the cache meanwhile (``Replay.ahead``).
    parsed_ahead: ParsedAhead | None = None


@dataclass(frozen=True)
class Timing:
    """One step of a project's run, how long it took and what it did (``--timings``)."""

    step: str  # "survey", "phase 1", "index", a rule's code, ...
    seconds: float
    detail: str = ""


@dataclass
class ProjectResult:
    root: Path
    #: The validated configuration; None when the result was replayed (nothing validated).
    config: LoadedConfig | None
    #: The rules that ran; empty when the result was replayed (no rule was imported).
    rules: list[Rule]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)
    files_checked: int = 0
    #: Roots of projects nested below this one (their own [tool.lion-lint]) within the targets.
    nested: list[Path] = field(default_factory=list)
    #: How many diagnostics the baseline held back.
    baselined: int = 0
    #: The targets (absolute) that reached no file of the run and no nested project: a
    #: directory without Python files, or a file named that is not checked.
    unreached: list[Path] = field(default_factory=list)
    #: With RunOptions.record_baseline: each diagnostic's baseline key.
    baseline_keys: dict[Diagnostic, baselines.Key] = field(default_factory=dict)
    #: With RunOptions.keep_project, for the last project of a run: the facts and index
    #: the rules saw (empty, or None, when a stored result was replayed). None otherwise.
    project: Project | None = None
    #: Where the run's time went, step by step, in the order the steps ran.
    timings: list[Timing] = field(default_factory=list)


def plan(paths: Sequence[Path], config_path: Path | None) -> dict[Path, tuple[Path | None, list[Path]]]:
    """Group the requested paths by the project they belong to: root -> (config, targets)."""
    projects: dict[Path, tuple[Path | None, list[Path]]] = {}
    for path in paths:
        absolute = named_path(path)
        if config_path is not None:
            root, config = config_path.resolve().parent, config_path.resolve()
        else:
            root, config = find_project_root(absolute)
        projects.setdefault(root, (config, []))[1].append(absolute)
    return projects


@dataclass
class Scope:
    """The files one project's run covers, and what it reports on."""

    #: The targets relative to the root ("" for the whole project).
    targets: list[str]
    #: Every project file the run reads (the project rules see them all), sorted.
    paths: list[str]
    #: Roots of nested projects (their own configuration), left out of ``paths``.
    nested: list[Path]
    #: Directories that could not be listed, with the reason.
    unreadable: list[tuple[str, str]]
    #: Project-relative paths whose text stands in for the file on disk (an editor buffer).
    overrides: dict[str, bytes]

    def reaches(self, path: str) -> bool:
        return within(path, self.targets)

    def nested_reached(self, targets: list[Path]) -> list[Path]:
        return [n for n in self.nested if _targets_reach(n, targets)]

    def unreached(self, root: Path) -> list[Path]:
        """The targets, made absolute, under which the run has no file to check and no
        nested project to hand them to."""
        covered = set()  # every file of the run and each directory above it
        for path in self.paths:
            parts = path.split("/")
            covered.update("/".join(parts[:depth]) for depth in range(len(parts) + 1))
        return [root / target for target in self.targets
                if target not in covered and not self.nested_reached([root / target])]


def scope_of(root: Path, config_path: Path | None, settings: Any, targets: list[Path],
             options: RunOptions) -> Scope:
    """Discover a project's files and place the targets and any editor buffer among them.
    ``settings`` is the validated ``[tool.lion-lint]`` (or a replay's record of it)."""
    relative_targets = []
    for target in targets:
        try:
            # Not stripped of dots: `.scripts/tool.py` is a path, not `scripts/tool.py`.
            relative_targets.append(target.relative_to(root).as_posix() if target != root else "")
        except ValueError:
            relative_targets.append(target.as_posix())
    unreadable: list[tuple[str, str]] = []
    if options.stdin is not None and config_path is None:
        # A buffer with no pyproject.toml at or above it (a scratch file in ~ or /tmp) is a
        # project of its own: indexing its whole directory could take minutes.
        paths, nested = [], []
    else:
        paths, nested = discover(root, settings, unreadable=unreadable)
    overrides: dict[str, bytes] = {}
    if options.stdin is not None:
        stdin_path, source = options.stdin
        relative = buffer_path(root, stdin_path)
        relative_targets = [relative]
        if options.force_exclude and is_excluded(relative, settings):
            # An editor that honours the excludes: the buffer is not linted, as its path
            # named on the command line would not be.
            return Scope(relative_targets, paths, nested, unreadable, overrides)
        # A buffer that is the file as saved (an editor linting what it has just opened or
        # saved) stands for nothing: the run is the file's own, whose result may be
        # replayed and kept like any other.
        if not saved_as(root / relative, source):
            overrides[relative] = source
        if relative not in paths:
            paths = sorted({*paths, relative})
    # An explicitly named Python file is linted even if excluded (as other linters do),
    # unless exclusions are forced.
    for target in relative_targets if not options.force_exclude else ():
        if (target.endswith(".py") or is_included(target, settings)) and target not in paths \
                and (root / target).is_file():
            paths = sorted({*paths, target})
    return Scope(relative_targets, paths, nested, unreadable, overrides)


def settle_result(result: ProjectResult, scope: Scope, project: Project, active: set[str],
                  config_path: Path | None, baseline_setting: str | None,
                  options: RunOptions) -> None:
    """The last step of a project's run: keep what the targets reach, count the files
    checked, then apply the baseline (or key every diagnostic for a new one)."""
    root = result.root
    result.diagnostics = sort_diagnostics([d for d in result.diagnostics if scope.reaches(d.path)])
    result.suppressed = [s for s in result.suppressed if scope.reaches(s.diagnostic.path)]
    checked = {p for p in scope.paths if scope.reaches(p)}
    result.files_checked = len(checked)
    result.unreached = scope.unreached(root)
    chosen = None if options.record_baseline else (
        options.baseline or baselines.configured(root, config_path, baseline_setting))

    def ran_on(path: str) -> bool:  # a file this run checked, or one deleted since
        return path in checked or (scope.reaches(path) and not (root / path).exists()
                                   and not any(n in (root / path).parents for n in scope.nested))

    diagnostics, result.baselined, result.baseline_keys = baselines.settle(
        result.diagnostics, project.source_lines, root, chosen, options.record_baseline, ran_on,
        active)
    result.diagnostics = sort_diagnostics(diagnostics)


def empty_project(root: Path, overrides: dict[str, bytes]) -> Project:
    """A project with no facts: what a replayed result needs (its files' lines, for the
    baseline) without decoding anything."""
    return Project(root=root, index=ProjectIndex([], {}), overrides=overrides)


def buffer_path(root: Path, stdin_path: Path) -> str:
    """An editor buffer's path within its project (``--stdin-filename``)."""
    return stdin_path.relative_to(root).as_posix() if stdin_path.is_absolute() \
        else stdin_path.as_posix()


def saved_as(path: Path, source: bytes) -> bool:
    """Whether the file at ``path`` holds exactly ``source``."""
    try:
        return path.stat().st_size == len(source) and path.read_bytes() == source
    except OSError:
        return False


def _targets_reach(nested_root: Path, targets: list[Path]) -> bool:
    return any(nested_root == t or t in nested_root.parents or nested_root in t.parents
               for t in targets)
