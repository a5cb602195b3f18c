"""--fix never leaves a file half-written: killed in the middle of a run, every file is its
old bytes or its new bytes. Also what the integration tests leave out: lone-CR and
no-final-newline files, symlinks, a cp1252 cookie, and a rerun that finishes the job.

The encoding, BOM, CRLF, permission, re-parse and idempotence cases are in
tests/test_integrations_fix.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from integration_support import BAD, make_project, run
from reliability_support import FIXED, many_bad_files

FILES = 80


def test_a_fix_killed_mid_run_leaves_every_file_old_or_new(tmp_path: Path) -> None:
    expected = many_bad_files(tmp_path, FILES)
    fix = subprocess.Popen([sys.executable, "-m", "lintkit", "--fix", "--no-cache"],
                           cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while fix.poll() is None and time.monotonic() < deadline:
            if any(path.read_bytes() != old for path, (old, _) in expected.items()):
                os.killpg(fix.pid, signal.SIGKILL)  # no handler, no cleanup: a power cut
                break
            time.sleep(0.002)
    finally:
        if fix.poll() is None:
            os.killpg(fix.pid, signal.SIGKILL)
        fix.wait()
    assert fix.returncode == -signal.SIGKILL, "the fix finished before it could be killed"
    states = {path: path.read_bytes() for path in expected}
    for path, data in states.items():
        assert data in expected[path], f"{path.name} is neither its old nor its new content"
    new = sum(states[path] == pair[1] for path, pair in expected.items())
    assert 0 < new < FILES, "the kill did not land in the middle of the writes"
    # What the kill left: at most a temporary file, which is never taken for a module.
    leftovers = [p.name for p in (tmp_path / "src/pkg").iterdir()
                 if p.name.endswith(".lion-lint-fix")]
    assert all(name.startswith(".m") for name in leftovers)
    finished = run("--fix", cwd=tmp_path)
    assert finished.returncode == 0, finished.stderr
    left = FILES - new  # bad.py of the base project sorts first: it was already fixed
    assert finished.stderr.startswith(f"Fixed {left} diagnostic"), finished.stderr
    assert all(path.read_bytes() == pair[1] for path, pair in expected.items())


def test_fix_keeps_lone_cr_no_final_newline_tabs_and_a_cp1252_cookie(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    variants = {
        "cr.py": BAD.replace("\n", "\r").encode(),
        "no_newline.py": BAD.rstrip("\n").encode(),
        "tabs.py": BAD.replace("    name", "\tname").encode(),
        "cp1252.py": ("# coding: cp1252\n# price: 5 €\n" + BAD).encode("cp1252"),
    }
    for name, data in variants.items():
        (project / "src/pkg" / name).write_bytes(data)
    result = run("--fix", cwd=project)
    assert result.returncode == 0, result.stderr
    for name, data in variants.items():
        fixed = (project / "src/pkg" / name).read_bytes()
        assert fixed == data.replace(b"@dataclass(frozen=True)",
                                     b"@dataclass(frozen=True, eq=False)"), name
    again = run("--fix", cwd=project)
    assert (again.returncode, again.stderr) == (0, "")


def test_fix_writes_through_a_symlink_and_keeps_the_link(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    real = tmp_path / "elsewhere" / "real_bad.py"
    real.parent.mkdir()
    real.write_text(BAD.replace("Bad", "Linked"))
    link = project / "src/pkg/linked.py"
    link.symlink_to(real)
    result = run("--fix", cwd=project)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == FIXED.replace("Bad", "Linked")
