"""The real pre-commit, installing this checkout's hook into its own environment.

The hook's repository is a snapshot of this working tree (a local git repository, as
pre-commit clones hooks from git); its environment is built with the machine's installed
packages visible and no package index, so the test needs no network.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
from integration_support import BAD, BAD_MESSAGE, git, git_init, make_project, run

REPO = Path(__file__).resolve().parents[1]
LEGACY = "from pkg.base import Params\n\n\nclass Legacy(Params):\n    __hash__ = None\n"
EXCLUDED = 'src = ["src"]\nextend-exclude = ["src/pkg/generated"]'
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def _snapshot(target: Path) -> str:
    """Commit this checkout's package as it is now into ``target``; returns the commit."""
    target.mkdir()
    for name in (".pre-commit-hooks.yaml", "pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, target / name)
    for name in ("lintkit", "rules"):
        shutil.copytree(REPO / name, target / name, ignore=IGNORED)
    git_init(target)
    return git(target, "rev-parse", "HEAD").strip()


# What the hook's environment brings itself, or must take from the snapshot.
_NOT_SHARED = ("pip", "setuptools", "pkg_resources", "_distutils_hack", "wheel", "lintkit",
               "lion_lint")


def _installed_packages(target: Path) -> Path:
    """The packages of the environment running the tests, for the hook's environment to
    see on its path, without an index: lion-lint's dependencies. Not virtualenv's
    --system-site-packages, which shows the base interpreter's packages, not a venv's;
    and not the build tools, since an older setuptools first on the path builds without
    bdist_wheel."""
    target.mkdir()
    for directory in site.getsitepackages():
        for entry in sorted(Path(directory).iterdir()):
            name = entry.name.split("-")[0].split(".")[0]
            # An editable install of lion-lint: its finder module and .pth.
            editable = entry.name.startswith("__editable__")
            if (name in _NOT_SHARED or editable or entry.suffix == ".pth"
                    or (target / entry.name).exists()):
                continue
            (target / entry.name).symlink_to(entry)
    return target


@pytest.fixture(scope="module")
def hooked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A project in a git repository whose commits run lion-lint through pre-commit."""
    base = tmp_path_factory.mktemp("precommit")
    rev = _snapshot(base / "hook-repo")
    project = make_project(base / "project", {"src/pkg/legacy.py": LEGACY})
    (project / "src/pkg/bad.py").unlink()
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('src = ["src"]', EXCLUDED))
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {base / 'hook-repo'}\n    rev: {rev}\n"
        "    hooks:\n      - id: lion-lint\n")
    git_init(project)
    env = {**os.environ, "PRE_COMMIT_HOME": str(base / "cache"), "PIP_NO_INDEX": "1",
           "PYTHONPATH": str(_installed_packages(base / "site")),
           # Build with the setuptools virtualenv seeds (which it does not by itself from
           # Python 3.12) instead of fetching one into an isolated build environment (pip
           # reads this variable's "0" as "no isolation").
           "VIRTUALENV_SETUPTOOLS": "bundle", "PIP_NO_BUILD_ISOLATION": "0",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    env.pop("NO_COLOR", None)
    for command in (["install"], ["install-hooks"]):
        done = subprocess.run([sys.executable, "-m", "pre_commit", *command], cwd=project,
                              env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stdout + done.stderr
    return project, env


def _commit(project: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "commit", "-m", message], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_staged_violation_fails_the_commit_and_a_clean_change_passes(
        hooked: tuple[Path, dict[str, str]]) -> None:
    project, env = hooked
    bad = project / "src/pkg/bad.py"
    bad.write_text(BAD)
    git(project, "add", "src/pkg/bad.py")
    failed = _commit(project, env, "add Bad")
    assert failed.returncode != 0
    output = failed.stdout + failed.stderr
    assert "lion-lint" in output and "Failed" in output
    # Bad's chain runs through files that were not staged: the hook indexed the project.
    assert ("src/pkg/bad.py:7:7: LL001 Bad descends from Params (via Mid) but its @dataclass "
            "does not pass eq=False") in output
    # legacy.py's old violation is not in a staged file, so it is not reported.
    assert "legacy.py" not in output
    assert git(project, "status", "--porcelain", "src/pkg/bad.py").startswith("A ")

    bad.write_text(BAD.replace("frozen=True)", "frozen=True, eq=False)"))
    # A staged file the configuration excludes is left out, though pre-commit names it;
    # so is a script pre-commit takes for Python by its shebang, with no .py suffix.
    generated = project / "src/pkg/generated/made.py"
    generated.parent.mkdir()
    generated.write_text(LEGACY)
    script = project / "scripts/tool"
    script.parent.mkdir()
    script.write_text("#!/usr/bin/env python3\nprint('hi')\n")
    script.chmod(0o755)
    git(project, "add", "src/pkg/bad.py", "src/pkg/generated/made.py", "scripts/tool")
    passed = _commit(project, env, "add Bad, keeping the structural equality")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout + passed.stderr
    assert git(project, "log", "-1", "--format=%s").strip() == (
        "add Bad, keeping the structural equality")


def test_named_files_are_reported_alone_from_the_whole_index(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/legacy.py": LEGACY,
                                      "src/pkg/generated/made.py": LEGACY})
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('src = ["src"]', EXCLUDED))
    # Bad's family is only known from mid.py and base.py, which are not named.
    named = run("src/pkg/bad.py", "src/pkg/clean.py", cwd=project)
    assert named.stdout == f"src/pkg/bad.py:7:7: LL001 {BAD_MESSAGE}\n"
    assert run("src/pkg/clean.py", cwd=project).returncode == 0
    # An excluded file named explicitly is linted, unless exclusions are forced.
    assert "made.py:5:5: LL001" in run("src/pkg/generated/made.py", cwd=project).stdout
    forced = run("--force-exclude", "src/pkg/generated/made.py", "src/pkg/clean.py", cwd=project)
    assert (forced.returncode, forced.stdout) == (0, "")
    assert run("--force-exclude", "src/pkg/bad.py", cwd=project).stdout == named.stdout
