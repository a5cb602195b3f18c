"""--changed-since REV: only diagnostics on lines added or changed since REV are reported."""

from __future__ import annotations

from pathlib import Path

from integration_support import BAD, git, git_init, make_project, run

from lintkit.engine.changes import changed_lines, parse_diff

OLD_VIOLATION = """\
from pkg.base import Params


class Old(Params):
    __hash__ = None
"""


def test_only_lines_changed_since_the_revision_are_reported(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/old.py": OLD_VIOLATION})
    (project / "src/pkg/bad.py").unlink()
    git_init(project)
    assert run("--changed-since", "HEAD", cwd=project).returncode == 0  # old debt is not news
    assert "src/pkg/old.py:5:5: LL001" in run(cwd=project).stdout

    # A new file (untracked) counts whole; an edit to an old file counts on its lines.
    (project / "src/pkg/bad.py").write_text(BAD)
    mid = project / "src/pkg/mid.py"
    mid.write_text(mid.read_text().replace("@dataclass(frozen=True, eq=False)", "@dataclass"))
    result = run("--changed-since", "HEAD", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["src/pkg/bad.py:7:7:", "src/pkg/mid.py:7:7:"]
    # Mid's class line did not change, but its decorator (the fix's line) did.
    assert "Mid descends from Params but its bare @dataclass" in lines[1]

    # Staged or committed, the comparison is still against the revision.
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "second")
    assert run("--changed-since", "HEAD", cwd=project).stdout == ""
    assert run("--changed-since", "HEAD~1", cwd=project).stdout == result.stdout


def test_outside_git_or_unknown_revision_exits_2(tmp_path: Path) -> None:
    project = make_project(tmp_path / "plain")
    outside = run("--changed-since", "HEAD", cwd=project)
    assert outside.returncode == 2
    assert "--changed-since needs a git repository" in outside.stderr
    assert outside.stdout == ""
    git_init(project)
    unknown = run("--changed-since", "no-such-branch", cwd=project)
    assert unknown.returncode == 2
    assert "unknown revision 'no-such-branch'" in unknown.stderr


def test_diff_parsing_handles_quoted_names_deletions_and_new_files(tmp_path: Path) -> None:
    diff = (b"diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n"
            b"@@ -3,0 +4,2 @@ def f():\n+a\n+b\n@@ -9 +11 @@\n-c\n+d\n@@ -20,3 +22,0 @@\n-e\n"
            b'--- a/"sp\\303\\251cial \\"q\\".py"\n+++ "b/sp\\303\\251cial \\"q\\".py"\n'
            b"@@ -1 +1 @@\n-x\n+y\n"
            b"--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-p\n-q\n")
    found = parse_diff(diff, tmp_path)
    assert found == {str(tmp_path / "x.py"): frozenset({4, 5, 11}),
                     str(tmp_path / 'spécial "q".py'): frozenset({1})}


def test_changed_lines_sees_renamed_files_by_their_changes_only(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("".join(f"x{i} = {i}\n" for i in range(20)))
    git_init(tmp_path)
    git(tmp_path, "mv", "a.py", "b.py")
    text = (tmp_path / "b.py").read_text().replace("x5 = 5", "x5 = 50")
    (tmp_path / "b.py").write_text(text)
    changed = changed_lines([tmp_path], "HEAD")
    assert changed.lines == {str((tmp_path / "b.py").resolve()): frozenset({6})}
