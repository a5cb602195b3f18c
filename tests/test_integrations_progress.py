"""The progress bar: on stderr for a large project when stderr is a terminal, else nothing."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from integration_support import make_project, run

from lintkit.cli.progress import MIN_FILES


def _run_with_terminal_stderr(cwd: Path) -> tuple[int, str, str]:
    """Run lion-lint with stderr on a pseudo-terminal (as in an interactive shell)."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen([sys.executable, "-m", "lintkit", "--no-cache", "."], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=terminal, env=env)
    os.close(terminal)
    seen = bytearray()
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed: the process is done writing
            break
        if not chunk:
            break
        seen += chunk
    os.close(controller)
    stdout = process.stdout.read().decode() if process.stdout else ""
    return process.wait(timeout=300), stdout, seen.decode(errors="replace")


def test_a_large_run_shows_a_bar_on_a_terminal_only(tmp_path: Path) -> None:
    many = {f"src/pkg/m{i:03}.py": f"VALUE_{i} = {i}\n" for i in range(MIN_FILES)}
    project = make_project(tmp_path, many)
    status, stdout, terminal = _run_with_terminal_stderr(project)
    assert status == 1
    assert stdout.startswith("src/pkg/bad.py:7:7: LL001")
    total = MIN_FILES + 5  # and the project's own five modules
    assert "parsing" in terminal and f"{total}/{total}" in terminal
    # With every file parsed, the bar says the rules are running, not that parsing hangs.
    assert "checking" in terminal
    piped = run("--no-cache", ".", cwd=project)
    assert piped.stdout == stdout and piped.stderr == ""


def test_a_small_run_shows_no_bar_even_on_a_terminal(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    status, stdout, terminal = _run_with_terminal_stderr(project)
    assert status == 1 and stdout
    assert terminal == ""
