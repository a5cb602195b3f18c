"""Display paths: what a report shows for a project-relative path, from where it runs."""

from __future__ import annotations

from pathlib import Path

from lintkit.core.diagnostics import Diagnostic, Edit, Fix, Location, Related
from lintkit.report.model import display_path, rebase


def _diagnostic() -> Diagnostic:
    return Diagnostic(
        location=Location("pkg/a.py", 3, 1, 3, 9), code="LL001", name="structural-eq",
        message="m", related=(Related(Location("pkg/base.py", 7, 7, 7, 13), "base"),),
        fix=Fix("add eq=False", (Edit("pkg/a.py", 2, 1, 2, 1, "x"),
                                 Edit("pkg/base.py", 1, 1, 1, 1, "y"))))


def _paths(diagnostic: Diagnostic) -> list[str]:
    assert diagnostic.fix is not None
    return [diagnostic.location.path, *(r.location.path for r in diagnostic.related),
            *(e.path for e in diagnostic.fix.edits)]


def test_paths_are_shown_relative_to_where_the_run_is(tmp_path: Path) -> None:
    root = tmp_path / "project"
    original = _diagnostic()
    assert _paths(rebase(original, root, tmp_path)) == [
        "project/pkg/a.py", "project/pkg/base.py", "project/pkg/a.py", "project/pkg/base.py"]
    assert _paths(rebase(original, root, root / "pkg")) == ["a.py", "base.py", "a.py", "base.py"]
    assert _paths(rebase(original, root, root / "docs")) == [
        "../pkg/a.py", "../pkg/base.py", "../pkg/a.py", "../pkg/base.py"]
    assert _paths(original) == ["pkg/a.py", "pkg/base.py", "pkg/a.py", "pkg/base.py"]
    assert display_path(root, "", tmp_path) == "project"


def test_from_the_project_root_nothing_is_copied(tmp_path: Path) -> None:
    original = _diagnostic()
    assert rebase(original, tmp_path, tmp_path) is original
    unnormalised = Diagnostic(Location("./pkg/a.py", 1, 1, 1, 2), "LL001", "structural-eq", "m")
    assert rebase(unnormalised, tmp_path, tmp_path).location.path == "pkg/a.py"
