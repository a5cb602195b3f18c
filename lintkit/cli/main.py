"""The ``lion-lint`` command line. An adapter: it parses arguments, calls the engine and
hands the results to a reporter. Heavy modules are imported inside the commands so that
``--version`` and ``--help`` stay fast."""

from __future__ import annotations

import errno
import gc
import os
import signal
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from time import perf_counter
from typing import Any, NoReturn

import click

from lintkit import __version__
from lintkit.core.text import plural

FORMATS = ("full", "concise", "json", "github", "sarif")
ISSUES_URL = "https://github.com/lion-lint/lion-lint/issues"


class DefaultGroup(click.Group):
    """``lion-lint PATHS`` means ``lion-lint check PATHS``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        elif args[0] in self.commands and args[0] != "check" and os.path.exists(args[0]):
            # A directory named like a command (``rules/``, ``clean/``): the command wins,
            # as it always has, but whoever meant the directory learns how to say so.
            click.echo(f"lion-lint: note: running the {args[0]!r} command; to check the path "
                       f"{args[0]!r}, run `lion-lint check {args[0]}`", err=True)
        return super().parse_args(ctx, args)


def _fail(message: str, code: int = 2) -> None:
    _say_error(message)
    sys.exit(code)


def _say_error(message: str) -> None:
    click.echo(f"lion-lint: error: {message}", err=True)


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lion-lint")
def cli() -> None:
    """lion-lint: LionAGI's house rules (ADR-0119 D8 gates), project-aware, on LibCST.

    Run `lion-lint [PATHS]...` to check; `lion-lint COMMAND --help` for a command."""


def _console(color: str, stderr: bool = False) -> Any:
    from rich.console import Console

    if color == "always":
        # no_color=False: Rich would otherwise read NO_COLOR itself and drop the colours
        # but keep bold and dim, a half-coloured report.
        return Console(force_terminal=True, no_color=False, stderr=stderr, highlight=False,
                       soft_wrap=True)
    if color == "never" or os.environ.get("NO_COLOR"):
        # NO_COLOR (no-color.org) asks for plain text; only an explicit --color always wins.
        return Console(no_color=True, color_system=None, stderr=stderr, highlight=False,
                       soft_wrap=True)
    return Console(stderr=stderr, highlight=False, soft_wrap=True)


def _require_paths(paths: list[Path]) -> None:
    """Every named path must exist: a typo must not pass as a clean run (or, for clean,
    reach the enclosing project's cache)."""
    for path in paths:
        if not path.exists():
            _fail(f"path does not exist: {path}")


def _require_config_file(config_file: Path | None) -> None:
    """--config must name a file: exit 2 saying what it names instead."""
    if config_file is None or config_file.is_file():
        return
    if config_file.is_dir():
        inside = config_file / "pyproject.toml"
        # Likely the project's directory: point at its file, when it has one.
        hint = f" (did you mean --config {inside}?)" if inside.is_file() else ""
        _fail(f"config file is a directory, not a file: {config_file}{hint}")
    if config_file.exists():
        _fail(f"config file is not a regular file: {config_file}")
    _fail(f"config file not found: {config_file}")


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def _require_selectors(args: CheckArgs) -> None:
    """Each --select, --extend-select and --ignore must name a rule. An empty one (often an
    unset shell variable) would otherwise vanish: ``--select ""`` ran the configured rules."""
    for option, values in (("--select", args.select), ("--extend-select", args.extend_select),
                           ("--ignore", args.ignore)):
        for value in values:
            if not _split((value,)):
                _fail(f"{option} {value!r} names no rule (give codes, code prefixes or names; "
                      "see `lion-lint rules`)")


@dataclass(frozen=True)
class CheckArgs:
    """Everything `check` was asked to do (one object, so each feature reads its own part)."""

    paths: tuple[Path, ...]
    output_format: str | None
    select: tuple[str, ...]
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    config_file: Path | None
    color: str
    show_suppressed: bool
    statistics: bool
    exit_zero: bool
    quiet: bool
    fix: bool
    diff: bool
    changed_since: str | None
    stdin_filename: Path | None
    force_exclude: bool
    baseline: Path | None
    write_baseline: Path | None
    cache_dir: Path | None
    no_cache: bool
    jobs: int | None
    timings: bool


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--output-format", type=click.Choice(FORMATS), default=None,
              help="Output format (default: full on a terminal, concise otherwise).")
@click.option("--select", multiple=True, help="Only these rules (codes, prefixes or names).")
@click.option("--extend-select", multiple=True, help="Also these rules.")
@click.option("--ignore", multiple=True, help="Not these rules.")
@click.option("--config", "config_file", type=click.Path(path_type=Path),
              help="The pyproject.toml to read [tool.lion-lint] from.")
@click.option("--color", type=click.Choice(("auto", "always", "never")), default="auto",
              help="Colour the full format (NO_COLOR and FORCE_COLOR are honoured).")
@click.option("--show-suppressed", is_flag=True, help="List suppressed diagnostics with reasons.")
@click.option("--statistics", is_flag=True, help="Print the number of diagnostics per rule.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when diagnostics are found.")
@click.option("--quiet", "-q", is_flag=True, help="Print diagnostics only, no summary.")
@click.option("--fix", is_flag=True, help="Apply the fixes rules offer.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--changed-since", metavar="REV",
              help="Report only diagnostics on lines changed since the git revision REV.")
@click.option("--stdin-filename", type=click.Path(path_type=Path),
              help="Lint source read from stdin as if it were this file.")
@click.option("--force-exclude", is_flag=True,
              help="Leave out named files the configuration excludes or does not include "
                   "(for pre-commit).")
@click.option("--baseline", type=click.Path(path_type=Path),
              help="Report only diagnostics not recorded in this baseline file.")
@click.option("--write-baseline", type=click.Path(path_type=Path),
              help="Record today's diagnostics in this baseline file.")
@click.option("--cache-dir", type=click.Path(path_type=Path),
              help="Where to cache phase-1 results (default: .lion-lint-cache/ in the project).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the cache.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes for parsing (default: the usable cores).")
@click.option("--timings", is_flag=True,
              help="Print where the run's time went, step by step, to standard error.")
def check(**kwargs: Any) -> None:
    """Check Python files under PATHS (default: the current directory)."""
    started = perf_counter()
    args = CheckArgs(**kwargs)
    # One run, then exit: reference counting frees what the run drops, and the cyclic
    # collector would only rescan the project's facts, never garbage (on LionAGI it cost
    # about a third of a warm run). The engine pauses it per project for library callers.
    gc.disable()
    from lintkit.config.locate import ConfigError
    from lintkit.engine.projects import InternalError, RunOptions

    from lintkit.cli.progress import ProgressBar
    from lintkit.cli.stdin import StdinUsageError, stdin_buffer

    cwd = Path.cwd()
    try:
        buffer = stdin_buffer(args.paths, args.stdin_filename, cwd, sys.stdin.buffer.read)
    except StdinUsageError as error:
        _fail(str(error))
        return
    targets = [buffer[0]] if buffer else list(args.paths) or [Path(".")]
    if buffer is None:
        _require_paths(targets)
    _require_config_file(args.config_file)
    _require_selectors(args)
    if args.statistics and args.output_format in ("github", "sarif"):
        # Statistics replace the report, and these formats are read by machines that
        # expect their own syntax: SARIF readers would get text, and no annotation appear.
        _fail(f"--statistics replaces the report with counts per rule and has no "
              f"{args.output_format} form; use it with --output-format full, concise or json")
    if args.write_baseline is not None and args.changed_since is not None:
        # The run would see only the changed lines' diagnostics, and the baseline would
        # lose every entry of the unchanged ones.
        _fail("--write-baseline records the whole run and cannot be combined with "
              "--changed-since")
    changed = _changed_lines(args, targets)
    show_progress = not args.quiet and sys.stderr is not None and sys.stderr.isatty()
    with ProgressBar(lambda: _console(args.color, stderr=True)) as bar:
        options = RunOptions(select=_split(args.select) or None,
                             extend_select=_split(args.extend_select),
                             ignore=_split(args.ignore), stdin=buffer,
                             progress=bar if show_progress else None,
                             force_exclude=args.force_exclude,
                             baseline=args.baseline.absolute() if args.baseline else None,
                             record_baseline=args.write_baseline is not None,
                             use_cache=not args.no_cache,
                             cache_dir=args.cache_dir.absolute() if args.cache_dir else None,
                             jobs=args.jobs, keep_project=True)

        # What --timings says beyond the projects' own steps.
        timed: dict[str, Any] = {"missed": "--fix, --diff and SARIF always run in full",
                                 "imports": None}

        def lint(stdin: tuple[Path, bytes] | None = buffer, first: bool = False) -> list[Any]:
            # The first run of a plain check may replay the last result without importing
            # pydantic or any rule (lintkit.engine.replay); --fix and --diff re-lint after
            # writing, and SARIF describes every rule, so they always run in full.
            results, ahead = None, None
            if first and not (args.fix or args.diff or args.output_format == "sarif"):
                from lintkit.engine.replay import replay

                replayed = replay(targets, args.config_file, replace(options, stdin=stdin))
                results, ahead = replayed.results, replayed.ahead
                timed["missed"] = replayed.missed
            if results is None:
                importing = perf_counter()
                from lintkit.cli.compose import compose
                from lintkit.engine.run import lint_paths

                if timed["imports"] is None:
                    timed["imports"] = perf_counter() - importing
                results = lint_paths(targets, args.config_file, compose,
                                     replace(options, stdin=stdin, parsed_ahead=ahead))
            if changed is not None:
                from lintkit.engine.changes import on_changed_lines

                for result in results:
                    result.diagnostics = on_changed_lines(result.root, result.diagnostics, changed)
                    result.suppressed = [s for s in result.suppressed if on_changed_lines(
                        result.root, [s.diagnostic], changed)]
            return results

        try:
            results = lint(first=True)
            if buffer is None:
                _say_what_went_unchecked(results, targets, args)
            if args.diff or args.fix:
                results = _fix(results, lint, buffer, cwd, args)
        except ConfigError as error:
            _fail(str(error))
            return
        except InternalError as error:
            _internal_error(str(error), error.plugin)
            return
    if args.write_baseline is not None:
        _write_baseline(results, args.write_baseline, targets)
    held = sum(r.baselined for r in results)
    if held and not args.quiet:
        click.echo(f"lion-lint: {plural(held, 'diagnostic')} recorded in the "
                   "baseline not shown", err=True)
    try:
        status = _report(results, cwd, args, buffer)
    except OSError as error:
        if error.errno == errno.EPIPE:
            raise  # the reader has gone (``| head``): click ends the run quietly, status 1
        sys.stdout = open(os.devnull, "w")  # what is still buffered can never be written
        _fail(_unwritable(error.strerror or str(error)))
        return
    if args.timings:
        from lintkit.cli.timings import write_timings

        write_timings(results, timed["missed"], timed["imports"], perf_counter() - started,
                      cwd, sys.stderr)
    sys.exit(status)


def _say_what_went_unchecked(results: list[Any], targets: list[Path], args: CheckArgs) -> None:
    """A named path that gave the run nothing to check is not passed over as a clean run.

    A named file lion-lint does not check (not Python, or not taken by ``include``) is an
    error, exit 2, unless --force-exclude asks to apply the configuration to named files:
    then skipping it is what was asked (pre-commit names every staged file, a Python
    script without a .py suffix too). A directory without Python files is a warning, as
    in ruff: the run itself is fine, just empty there."""
    from lintkit.engine.discovery import named_path

    unreached = {path for result in results for path in result.unreached}
    missed = [target for target in dict.fromkeys(targets) if named_path(target) in unreached]
    files = [target for target in missed if not target.is_dir()]
    if files and not args.force_exclude:
        for file in files:
            _say_error(f"not a file lion-lint checks: {file} (it checks *.py files and "
                       "those the include setting matches)")
        sys.exit(2)
    if args.quiet:
        return
    for directory in (target for target in missed if target.is_dir()):
        click.echo(f"lion-lint: warning: no Python files to check under {directory}", err=True)
    if files and not any(result.files_checked for result in results):
        click.echo("lion-lint: warning: nothing checked: --force-exclude left out every named "
                   "file (excluded by the configuration, or not a Python file)", err=True)


def _write_baseline(results: list[Any], path: Path, targets: list[Path]) -> None:
    """--write-baseline: record what this run found (keeping the entries of files and rules
    it did not check) and exit 0."""
    from lintkit.config.locate import ConfigError
    from lintkit.engine import baseline

    path = path.absolute()
    fresh = baseline.entries_for(((r.root, r.diagnostics, r.baseline_keys) for r in results),
                                 path.parent)
    if path.is_file():
        try:
            previous = baseline.load(path)
        except ConfigError as error:
            click.echo(f"lion-lint: warning: {error}; rewriting it from this run alone", err=True)
        else:
            fresh = baseline.keep_unchecked(previous, fresh,
                                            [Path(os.path.abspath(t)) for t in targets],
                                            {r.root: {rule.code for rule in r.rules}
                                             for r in results})
    try:
        baseline.write(path, fresh)
    except OSError as error:
        _fail(f"cannot write the baseline {path}: {error}")
    recorded = sum(fresh.values())
    click.echo(f"lion-lint: wrote {len(fresh)} baseline entries "
               f"({plural(recorded, 'diagnostic')}) to {path}", err=True)
    # A baseline never holds LL000, so the very next run fails on these: say so now.
    unchecked = [d for r in results for d in r.diagnostics if d.code == "LL000"]
    if unchecked:
        click.echo(f"lion-lint: warning: {plural(len(unchecked), 'file')} could not be "
                   "checked (LL000) and cannot be baselined; the next run reports them:",
                   err=True)
        for d in unchecked:
            click.echo(f"  {d.location.path}:{d.location.line}:{d.location.column}: "
                       f"{d.message}", err=True)
    sys.exit(0)


def _changed_lines(args: CheckArgs, targets: list[Path]) -> Any:
    """--changed-since: the lines changed since the revision (exit 2 if git cannot say)."""
    if args.changed_since is None:
        return None
    from lintkit.engine.changes import ChangesError, changed_lines

    directories = {(t if t.is_dir() else t.parent).resolve() for t in targets}
    try:
        return changed_lines(sorted(directories), args.changed_since)
    except ChangesError as error:
        _fail(str(error))


def _fix(results: list[Any], lint: Any, buffer: tuple[Path, bytes] | None, cwd: Path,
         args: CheckArgs) -> list[Any]:
    """--diff prints and exits; --fix rewrites (or, for stdin, prints the fixed buffer) and
    returns what remains to report."""
    from lintkit.cli import fixing

    if args.diff:
        pending = fixing.show_diff(results, buffer, cwd, quiet=args.quiet)
        sys.exit(0 if args.exit_zero or not pending else 1)
    if buffer is None:
        return list(fixing.fix_files(results, lint, cwd, quiet=args.quiet))
    remaining, fixed = fixing.fix_buffer(results, lint, buffer, cwd)
    sys.stdout.flush()
    sys.stdout.buffer.write(fixed)
    sys.stdout.flush()
    report = _collect(list(remaining), cwd, buffer)
    if not args.quiet:
        from lintkit.report.concise import write_concise

        write_concise(report, sys.stderr)
    sys.exit(0 if args.exit_zero or not report.diagnostics else 1)


def _collect(results: list[Any], cwd: Path, buffer: tuple[Path, bytes] | None = None,
             describe_rules: bool = False) -> Any:
    from lintkit.report.model import Report, display_path, rebase

    report = Report(diagnostics=[], rules=[])
    if describe_rules:  # only SARIF describes rules; importing them costs a replayed run
        from lintkit.cli.compose import all_rules

        report.rules = list(all_rules())
    for result in results:
        report.diagnostics.extend(rebase(d, result.root, cwd) for d in result.diagnostics)
        report.suppressed.extend(replace(s, diagnostic=rebase(s.diagnostic, result.root, cwd))
                                 for s in result.suppressed)
        report.files_checked += result.files_checked
        if describe_rules:  # a project's plugin rules are described too
            report.rules.extend(type(r) for r in result.rules if type(r) not in report.rules)
        for d in result.diagnostics:
            report.sources[display_path(result.root, d.path, cwd)] = result.root / d.path
    if buffer is not None:  # code frames show the buffer, not the file on disk
        report.sources[display_path(buffer[0], "", cwd)] = buffer[1]
    return report


def _report(results: list[Any], cwd: Path, args: CheckArgs,
            buffer: tuple[Path, bytes] | None = None) -> int:
    """Write the report; the exit status it calls for."""
    fmt = args.output_format or ("full" if sys.stdout.isatty() else "concise")
    report = _collect(results, cwd, buffer, describe_rules=fmt == "sarif")
    if args.statistics:
        from lintkit.report.statistics import write_statistics

        write_statistics(report, sys.stdout, as_json=fmt == "json")
    elif fmt == "concise":
        from lintkit.report.concise import write_concise

        write_concise(report, sys.stdout, show_suppressed=args.show_suppressed)
    elif fmt == "json":
        from lintkit.report.json_format import write_json

        write_json(report, sys.stdout)
    elif fmt == "github":
        from lintkit.report.github import write_github

        write_github(report, sys.stdout)
    elif fmt == "sarif":
        from lintkit.report.sarif import write_sarif

        write_sarif(report, sys.stdout, cwd)
    else:
        from lintkit.report.full import write_full

        write_full(report, _console(args.color), show_suppressed=args.show_suppressed,
                   show_summary=not args.quiet)
    return 0 if args.exit_zero or not report.diagnostics else 1


def _internal_error(message: str, plugin: str | None = None) -> None:
    first = message.splitlines()[0]
    click.echo(f"lion-lint: {'error' if plugin else 'internal error'}: {first}", err=True)
    debug = bool(os.environ.get("LION_LINT_DEBUG"))
    if debug:
        click.echo(message, err=True)
    # Whoever set it already has the traceback: telling them to set it would mislead.
    how = " (the traceback is above)" if debug else " (set LION_LINT_DEBUG=1 for the traceback)"
    if plugin:  # the project's own rule: its authors, not lion-lint's tracker, can fix it
        click.echo(f"This is a bug in your project's rule module {plugin}{how}.", err=True)
    else:
        click.echo(f"This is a bug in lion-lint or in a rule; please report it at "
                   f"{ISSUES_URL}{how}.", err=True)
    sys.exit(2)


def _project_rules(config_file: Path | None) -> tuple[Any, ...]:
    """lion-lint's rules and the plugins of the current directory's project (or --config's)."""
    from lintkit.cli.compose import all_rules
    from lintkit.cli.plugins import project_config
    from lintkit.config.locate import ConfigError

    _require_config_file(config_file)
    try:
        return all_rules(project_config(Path.cwd(), config_file))
    except ConfigError as error:
        _fail(str(error))
        return ()


_CONFIG_OPTION = click.option(
    "--config", "config_file", type=click.Path(path_type=Path),
    help="The pyproject.toml whose plugins to include (default: the current directory's project).")


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--config", "config_file", type=click.Path(path_type=Path),
              help="The pyproject.toml whose project's cache to remove.")
@click.option("--cache-dir", type=click.Path(path_type=Path),
              help="Remove this cache directory instead of the project's.")
def clean(paths: tuple[Path, ...], config_file: Path | None, cache_dir: Path | None) -> None:
    """Remove the phase-1 cache of the projects under PATHS (default: the current directory)."""
    from lintkit.config.locate import ConfigError
    from lintkit.engine.cache import cache_directories, remove_cache

    _require_paths(list(paths))
    _require_config_file(config_file)
    try:
        directories = [cache_dir] if cache_dir else cache_directories(list(paths) or [Path(".")],
                                                                      config_file)
    except ConfigError as error:
        _fail(str(error))
        return
    for directory in directories:
        try:
            removed = remove_cache(directory)
        except (ValueError, OSError) as error:
            _fail(str(error))
            return
        click.echo(f"{'removed' if removed else 'no cache at'} {directory}", err=True)


@cli.command("rules")
@_CONFIG_OPTION
def list_rules(config_file: Path | None) -> None:
    """List the rules, with the current project's plugins: code, name, summary, and whether
    enabled by default."""
    from rich.table import Table

    table = Table(show_edge=False, header_style="bold")
    for column in ("code", "name", "summary", "enabled"):
        table.add_column(column)
    for rule in sorted(_project_rules(config_file), key=lambda r: r.code):
        table.add_row(rule.code, rule.name, rule.summary, "yes" if rule.default_enabled else "no")
    console = _console("auto")
    if not console.is_terminal:
        console.width = 1000  # piped or redirected: whole summaries, never cut at 80 columns
    console.print(table)


@cli.command()
@click.argument("rule")
@_CONFIG_OPTION
def explain(rule: str, config_file: Path | None) -> None:
    """Explain a rule (by code or name): what it does, why, an example, how to fix. The
    current project's plugins are included."""
    from lintkit.cli.compose import all_rules
    from lintkit.cli.plugins import plugin_spec
    from lintkit.core.rule import DOC_SECTIONS

    wanted = rule.strip()
    for candidate in _project_rules(config_file):
        if wanted.upper() == candidate.code or wanted == candidate.name:
            docs = candidate.docs()
            lines = [f"# {candidate.code} {candidate.name}", "", candidate.summary, ""]
            if candidate not in all_rules():
                lines += [f"A local rule: plugin `{plugin_spec(candidate)}`.", ""]
            for section in DOC_SECTIONS:
                lines += [f"## {section}", "", docs[section], ""]
            text = "\n".join(lines).rstrip() + "\n"
            if sys.stdout.isatty():
                from rich.markdown import Markdown

                _console("auto").print(Markdown(text))
            else:
                click.echo(text, nl=False)
            return
    _fail(f"unknown rule '{rule}' (see `lion-lint rules`)")


@cli.command("new-rule")
@click.argument("name")
@click.option("--code", help="The rule's code (default: the first free HR### in the project).")
@click.option("--package", default="tools.lint", show_default=True,
              help="The project package to write the rule module and its test into.")
@_CONFIG_OPTION
def new_rule(name: str, code: str | None, package: str, config_file: Path | None) -> None:
    """Scaffold a local rule NAME (kebab-case: 'No_Print' becomes 'no-print') and its
    passing test in the current project."""
    from lintkit.cli.plugins import project_config
    from lintkit.cli.scaffold import ScaffoldError, codes_taken, next_code, scaffold_rule
    from lintkit.config.load import held_keys
    from lintkit.config.locate import ConfigError

    _require_config_file(config_file)
    try:
        config = project_config(Path.cwd(), config_file)
    except ConfigError as error:
        _fail(str(error))
        return
    if config.path is None:
        # Without a project the files would land wherever the shell happens to be.
        _fail(f"no pyproject.toml at or above {Path.cwd()}: run new-rule inside your "
              "project (or --config its pyproject.toml)")
    rules = _project_rules(config_file)
    held = held_keys((rule, f"rule {rule.code} ({rule.name})") for rule in rules)
    roots = [config.root / root for root in config.src_roots()]
    try:
        taken = codes_taken(rules, config.root, package)
        made = scaffold_rule(config.root, name, (code or next_code(taken)).strip().upper(),
                             package, taken, held, roots)
    except ScaffoldError as error:
        _fail(str(error))
        return
    cwd = Path.cwd()
    for path in made.created:
        click.echo(f"created {os.path.relpath(path, cwd)}")
    test = os.path.relpath(made.test_path, cwd)
    pyproject = os.path.relpath(config.path or config.root / "pyproject.toml", cwd)
    click.echo(f"\nRule {made.code} {made.name} is class {made.class_name}. Next:\n"
               f"  1. python -m pytest {test}    # passes as generated\n"
               f"  2. add it to [tool.lion-lint] in {pyproject}:\n"
               f"       {_plugins_line(config.settings.plugins, made.spec)}\n"
               f"  3. lion-lint    # runs it with the other rules\n"
               f"  4. edit {os.path.relpath(made.rule_path, cwd)} into your house rule "
               "(its docstring, examples and check)")


@cli.command("imports")
@click.argument("module")
@click.option("--output-format", type=click.Choice(("tree", "flat", "json")), default="tree",
              show_default=True, help="A tree of first arrivals, a flat sorted list, or JSON.")
@click.option("--include-call-time", is_flag=True,
              help="Also follow imports that run when the module's functions are called.")
@click.option("--hide-stdlib", is_flag=True, help="Leave standard-library modules out.")
@click.option("--runtime", is_flag=True,
              help="Also import MODULE in a fresh interpreter (this runs the project's code) "
                   "and compare what it loads with the static closure.")
@click.option("--python", "python", type=click.Path(path_type=Path),
              help="The interpreter for --runtime (default: the one running lion-lint).")
@click.option("--project", type=click.Path(exists=True, path_type=Path), default=None,
              help="A directory or file in the project (default: MODULE's own project when "
                   "MODULE is a path, else the current directory's).")
@click.option("--config", "config_file", type=click.Path(path_type=Path),
              help="The pyproject.toml to read [tool.lion-lint] from.")
def imports(**kwargs: Any) -> None:
    """What importing MODULE loads (a dotted name or a file), as the LL004 gate sees it."""
    from lintkit.cli.imports_command import ImportsArgs, UsageError, run_imports
    from lintkit.config.locate import ConfigError
    from lintkit.engine.projects import InternalError

    args = ImportsArgs(**kwargs)
    _require_config_file(args.config_file)
    try:
        status = run_imports(args, click.echo)
    except (ConfigError, UsageError) as error:
        _fail(str(error))
        return
    except InternalError as error:
        _internal_error(str(error))
        return
    sys.exit(status)


def _plugins_line(plugins: tuple[str, ...], spec: str) -> str:
    """The ``plugins`` line with the new rule added to the ones already configured."""
    return "plugins = [" + ", ".join(f'"{p}"' for p in (*plugins, spec)) + "]"


def main() -> None:
    if sys.stdout is None:  # started with standard output closed (``lion-lint >&-``)
        _say_error(_unwritable("standard output is closed"))
        _leave(2)
    # A file name that is not valid UTF-8 is printed as the bytes it is made of.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape")
    # A CI job's timeout or a killed hook sends SIGTERM: stop as on Ctrl-C, workers and all.
    signal.signal(signal.SIGTERM, _terminated)
    # Not click's standalone mode: it turns Ctrl-C into "Aborted!" and exit 1, which reads
    # as "violations found", and lets any other exception out as a traceback.
    try:
        status = cli.main(prog_name="lion-lint", standalone_mode=False)
    except SystemExit as exit_:
        # Left here, not after the block: leaving it drops the exception, whose traceback
        # holds the command's frames, and with them the project, freed object by object.
        _leave(exit_.code)
    except (KeyboardInterrupt, click.exceptions.Abort) as stop:
        # click re-raises an interrupt met inside a command as Abort, from the interrupt.
        terminated = isinstance(stop, _Terminated) or isinstance(stop.__cause__, _Terminated)
        click.echo(f"lion-lint: {'terminated' if terminated else 'interrupted'}", err=True)
        sys.stdout.flush()
        sys.stderr.flush()
        # Not sys.exit: at exit concurrent.futures joins its pool's manager thread with no
        # timeout, and a worker stopped in the middle of sending a result leaves that thread
        # waiting for the rest of it forever (about one Ctrl-C in a hundred hung so). Nothing
        # is left to clean up: the workers are stopped, and every write is atomic.
        os._exit(128 + (signal.SIGTERM if terminated else signal.SIGINT))
    except click.ClickException as error:
        error.show()
        status = error.exit_code
    except Exception as error:  # a bug: said in one line, status 2 (it exits as usual)
        import traceback

        _internal_error(f"{type(error).__name__}: {error}\n{traceback.format_exc()}")
    _leave(status)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is so that it unwinds as an interrupted one does."""


def _terminated(signum: int, frame: object) -> NoReturn:
    raise _Terminated


def _unwritable(reason: str) -> str:
    return f"cannot write the report: {reason}"


def _leave(status: object) -> NoReturn:
    """End the process with ``status`` (as ``sys.exit`` reads it) once the output is out.

    Not sys.exit: the interpreter would then free, object by object, everything the run
    made, the project it keeps (RunOptions.keep_project) included: 0.25 s on the standard
    library and on the LionAGI checkout, a tenth of a run with a file changed. Nothing
    else waits for the exit: the workers have ended and every write is atomic."""
    if status is None:
        code = 0
    elif isinstance(status, int):
        code = status
    else:  # sys.exit("message")
        print(status, file=sys.stderr)
        code = 1
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        pass  # the reader has gone (``lion-lint | head``): nothing left to tell it
    except OSError as error:  # a full disk under ``> report.txt``: the report is not whole
        _say_error(_unwritable(error.strerror or str(error)))
        code = 2
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)
