"""Editors: lint an unsaved buffer from stdin in its project, and feed Vim's quickfix list."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from integration_support import BAD, BAD_MESSAGE, CLEAN, make_project, run

VIM = shutil.which("vim")
README = Path(__file__).resolve().parents[1] / "README.md"
OTHER_VIOLATION = ("from pkg.base import Params\n\n\nclass Other(Params):\n"
                   "    __hash__ = None\n")


def test_buffer_is_linted_as_the_named_file_with_the_rest_of_the_project_from_disk(
        tmp_path: Path) -> None:
    # On disk bad.py is clean and another file is not; the buffer holds the unsaved edit.
    project = make_project(tmp_path, {"src/pkg/other.py": OTHER_VIOLATION})
    (project / "src/pkg/bad.py").write_text(CLEAN)
    expected = f"src/pkg/bad.py:7:7: LL001 {BAD_MESSAGE}\n"
    for args in (["--stdin-filename", "src/pkg/bad.py", "-"],
                 ["--stdin-filename", "src/pkg/bad.py"]):
        result = run(*args, cwd=project, stdin=BAD.encode())
        # Bad's chain runs through mid.py and base.py, read from disk; other.py's own
        # violation is not the buffer's and is not reported.
        assert (result.returncode, result.stdout) == (1, expected), result.stderr
    assert (project / "src/pkg/bad.py").read_text() == CLEAN

    # A buffer for a file not yet saved at all, named relative to a subdirectory.
    fresh = run("--stdin-filename", "new.py", cwd=project / "src/pkg", stdin=BAD.encode())
    assert fresh.stdout == f"new.py:7:7: LL001 {BAD_MESSAGE}\n"
    clean = run("--stdin-filename", "src/pkg/bad.py", cwd=project, stdin=CLEAN.encode())
    assert (clean.returncode, clean.stdout) == (0, "")


def test_dash_alone_reads_stdin_as_stdin(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = run("-", cwd=project, stdin=BAD.encode())
    assert result.stdout == f"<stdin>:7:7: LL001 {BAD_MESSAGE}\n"
    broken = run("-", cwd=project, stdin=b"def broken(:\n    pass\n")
    assert broken.returncode == 1
    assert broken.stdout.startswith("<stdin>:1:")
    assert " LL000 " in broken.stdout


def test_stdin_with_fix_prints_the_fixed_buffer_and_diff_prints_its_diff(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    (project / "src/pkg/bad.py").write_text(CLEAN)
    fixed = run("--fix", "--stdin-filename", "src/pkg/bad.py", cwd=project, stdin=BAD.encode())
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stdout == BAD.replace("frozen=True)", "frozen=True, eq=False)")
    assert (project / "src/pkg/bad.py").read_text() == CLEAN
    diff = run("--diff", "--stdin-filename", "src/pkg/bad.py", cwd=project, stdin=BAD.encode())
    assert diff.returncode == 1
    assert diff.stdout.splitlines()[:2] == ["--- a/src/pkg/bad.py", "+++ b/src/pkg/bad.py"]
    assert "+@dataclass(frozen=True, eq=False)  # keep this comment" in diff.stdout.splitlines()


def test_stdin_with_other_paths_is_a_usage_error(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    result = run("--stdin-filename", "a.py", "src", cwd=project, stdin=b"")
    assert result.returncode == 2
    assert "standard input is linted alone" in result.stderr


def test_a_scratch_buffer_outside_any_project_is_linted_alone(tmp_path: Path) -> None:
    # No pyproject.toml at or above: the buffer's directory (think ~ or /tmp) is not
    # indexed; a broken file beside it would otherwise be read and reported.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "broken.py").write_text("def broken(:\n")
    buffer = b"import atexit\natexit.register(print)\n"
    result = run("--stdin-filename", tmp_path / "scratch.py", cwd=tmp_path, stdin=buffer)
    assert (result.returncode, result.stdout) == (
        1, "scratch.py:2:1: LL003 atexit.register() registers at import time: calls "
           "atexit.register (a registration-callables entry)\n"), result.stderr
    assert not (tmp_path / ".lion-lint-cache").exists()  # an unsaved buffer is not cached


def test_force_exclude_leaves_an_excluded_buffer_unlinted(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    (project / "pyproject.toml").write_text((project / "pyproject.toml").read_text().replace(
        'src = ["src"]\n', 'src = ["src"]\nextend-exclude = ["generated"]\n'))
    named = "src/pkg/generated/gen.py"
    honoured = run("--force-exclude", "--stdin-filename", named, cwd=project, stdin=BAD.encode())
    assert (honoured.returncode, honoured.stdout) == (0, ""), honoured.stderr
    plain = run("--stdin-filename", named, cwd=project, stdin=BAD.encode())
    assert plain.returncode == 1 and plain.stdout.startswith(f"{named}:7:7: LL001")


@pytest.mark.skipif(VIM is None, reason="vim is not installed")
def test_vim_reads_the_concise_format_into_its_quickfix_list(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/other.py": OTHER_VIOLATION})
    output = tmp_path / "lint.txt"
    output.write_text(run("--output-format", "concise", cwd=project).stdout)
    as_json = ('call writefile([json_encode(map(getqflist(), {_, e -> {"file": bufname(e.bufnr),'
               ' "lnum": e.lnum, "col": e.col, "text": e.text, "valid": e.valid}}))], "{}")')
    # The README's settings, run by :make, and the output read with Vim's defaults.
    (vim_block,) = _readme_blocks("vim")
    settings = [line for line in vim_block.splitlines() if line.startswith("set ")]
    assert [line.split("=")[0] for line in settings] == ["set makeprg", "set errorformat"]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    for name, commands in (("make", [*settings, "silent make"]),
                           ("cgetfile", [f"cgetfile {output}"])):
        target = tmp_path / f"{name}.json"
        script = [*commands, as_json.replace("{}", str(target)), "qall!"]
        subprocess.run([VIM, "-es", "-N", "-u", "NONE", "-i", "NONE",
                        *[arg for command in script for arg in ("-c", command)]],
                       cwd=project, capture_output=True, timeout=120,
                       env={**os.environ, "PATH": path}, stdin=subprocess.DEVNULL)
        entries = json.loads(target.read_text())
        found = [(e["file"], e["lnum"], e["col"], e["text"].strip()) for e in entries
                 if e["valid"]]
        assert found == [
            ("src/pkg/bad.py", 7, 7, f"LL001 {BAD_MESSAGE}"),
            ("src/pkg/other.py", 5, 5, "LL001 Other descends from Params but defines __hash__ by "
             "assignment, replacing the structural one of Params without a declared override "
             "reason"),
        ], name


def _readme_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README.read_text(), re.S | re.M)


def test_the_readme_vs_code_problem_matcher_reads_the_concise_format(tmp_path: Path) -> None:
    (tasks,) = [json.loads(b) for b in _readme_blocks("json") if "problemMatcher" in b]
    (task,) = tasks["tasks"]
    matcher = task["problemMatcher"]
    pattern = matcher["pattern"]
    project = make_project(tmp_path, {"src/pkg/other.py": OTHER_VIOLATION})
    assert task["command"] == "lion-lint --output-format concise"
    output = run(*task["command"].split()[1:], cwd=project).stdout
    found = []
    for line in output.splitlines():
        match = re.match(pattern["regexp"], line)
        assert match, line
        found.append(tuple(match.group(pattern[k]) for k in ("file", "line", "column", "code")))
    assert found == [("src/pkg/bad.py", "7", "7", "LL001"), ("src/pkg/other.py", "5", "5", "LL001")]
    assert match.group(pattern["message"]).startswith("Other descends from Params")


@pytest.mark.skipif(VIM is None, reason="vim is not installed")
def test_the_readme_vim_command_lints_the_unsaved_buffer(tmp_path: Path) -> None:
    (vim_block,) = _readme_blocks("vim")
    command = next(line for line in vim_block.splitlines() if line.startswith("command!"))
    project = make_project(tmp_path)
    (project / "src/pkg/bad.py").write_text(CLEAN)  # on disk: clean; in the buffer: not
    (tmp_path / "buffer.txt").write_text(BAD)
    target = tmp_path / "quickfix.json"
    script = ["edit src/pkg/bad.py", f"call setline(1, readfile('{tmp_path / 'buffer.txt'}'))",
              command, "LionLint",
              'call writefile([json_encode(map(getqflist(), {_, e -> [bufname(e.bufnr), '
              f'e.lnum, e.col, e.text]}}))], "{target}")', "qall!"]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    subprocess.run([VIM, "-es", "-N", "-u", "NONE", "-i", "NONE",
                    *[arg for line in script for arg in ("-c", line)]],
                   cwd=project, capture_output=True, timeout=120,
                   env={**os.environ, "PATH": path}, stdin=subprocess.DEVNULL)
    entries = json.loads(target.read_text())
    assert [(f, lnum, col, text.strip()) for f, lnum, col, text in entries] == [
        ("src/pkg/bad.py", 7, 7, f"LL001 {BAD_MESSAGE}")]
    assert (project / "src/pkg/bad.py").read_text() == CLEAN
