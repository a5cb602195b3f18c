"""--fix and --diff: LL001's edits, and the safety of writing (encoding, BOM, newlines,
permissions, atomic replace, re-parse, idempotence, exit status)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from integration_support import BAD, CLEAN, make_project, run

from lintkit.core.diagnostics import Diagnostic, Edit, Fix, Location
from lintkit.engine.fix import Disk, FixError, apply_fixes, fix_results, fix_source
from lintkit.testing import lint_sources
from lion_lint.rules.structural_eq import StructuralEq

BASE = "from dataclasses import dataclass\n\n\n@dataclass(eq=False)\nclass Params:\n    pass\n"
HEADER = "import dataclasses\nfrom dataclasses import dataclass\n\nfrom pkg.base import Params\n\n\n"
OPTIONS = {"authorities": ["pkg.base.Params"]}
UNFIXABLE = "from pkg.base import Params\n\n\nclass Own(Params):\n    __hash__ = None\n"


def _fixed(decorator: str) -> tuple[str, list[Diagnostic]]:
    """Fix a class decorated with ``decorator`` (the real rule, the real engine), and lint
    the result again."""
    source = HEADER + decorator + "\nclass Child(Params):\n    x: int = 0\n"
    files = {"pkg/__init__.py": "", "pkg/base.py": BASE}
    found = lint_sources({**files, "pkg/child.py": source}, [StructuralEq], options=OPTIONS)
    fixes = [d.fix for d in found if d.fix is not None]
    text, applied = apply_fixes(source, fixes)
    assert len(applied) == len(fixes)
    after = lint_sources({**files, "pkg/child.py": text}, [StructuralEq], options=OPTIONS)
    return text[len(HEADER):text.index("\nclass Child")], after


@pytest.mark.parametrize(("before", "after"), [
    ("@dataclass", "@dataclass(eq=False)"),
    ("@dataclasses.dataclass  # why", "@dataclasses.dataclass(eq=False)  # why"),
    ("@dataclass()", "@dataclass(eq=False)"),
    ("@dataclass(frozen=True)", "@dataclass(frozen=True, eq=False)"),
    ("@dataclass(eq=True, frozen=True)", "@dataclass(eq=False, frozen=True)"),
    ("@dataclass(unsafe_hash=True)", "@dataclass(eq=False)"),
    ("@dataclass(frozen=True, unsafe_hash=True)", "@dataclass(frozen=True, eq=False)"),
    ("@dataclass(eq=True, unsafe_hash=True, order=True)", "@dataclass(eq=False, order=True)"),
    ("@dataclass(unsafe_hash=True, eq=False)", "@dataclass(eq=False)"),
    ("@dataclass(unsafe_hash = True,  eq=False)", "@dataclass(eq=False)"),
    ("@dataclass(\n    frozen=True,  # immutable\n    unsafe_hash=True,  # for sets\n"
     "    eq=True,\n)",
     "@dataclass(\n    frozen=True,  # immutable\n    eq=False,\n)"),
    ("@dataclass(\n    frozen=True,  # immutable\n)",
     "@dataclass(\n    frozen=True, eq=False,  # immutable\n)"),
])
def test_ll001_fix_keeps_layout_and_comments_and_leaves_nothing_to_report(
        before: str, after: str) -> None:
    text, remaining = _fixed(before)
    assert text == after
    assert remaining == []


def test_ll001_offers_no_fix_for_kwargs() -> None:
    source = HEADER + "@dataclass(**options)\nclass Child(Params):\n    pass\n"
    found = lint_sources({"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/child.py": source},
                         [StructuralEq], options=OPTIONS)
    assert [d.fix for d in found] == [None]


def test_fix_rewrites_reports_what_remains_and_is_idempotent(tmp_path: Path) -> None:
    project = make_project(tmp_path, {"src/pkg/own.py": UNFIXABLE})
    bad = project / "src/pkg/bad.py"
    first = run("--fix", cwd=project)
    assert first.returncode == 1  # Own's __hash__ has no automatic fix
    assert first.stdout.startswith("src/pkg/own.py:5:5: LL001 Own descends from Params")
    assert "bad.py" not in first.stdout
    assert first.stderr == "Fixed 1 diagnostic in 1 file.\n"
    assert bad.read_text() == BAD.replace("@dataclass(frozen=True)  # keep",
                                          "@dataclass(frozen=True, eq=False)  # keep")
    fixed = bad.read_bytes()
    second = run("--fix", cwd=project)
    assert (second.returncode, second.stdout, second.stderr) == (1, first.stdout, "")
    assert bad.read_bytes() == fixed
    (project / "src/pkg/own.py").unlink()
    assert run("--fix", cwd=project).returncode == 0
    assert sorted(p.name for p in bad.parent.iterdir()) == [  # no temporary file left behind
        "__init__.py", "bad.py", "base.py", "clean.py", "mid.py"]


def test_fix_keeps_encoding_bom_newlines_and_permissions(tmp_path: Path) -> None:
    latin = ("# -*- coding: latin-1 -*-\n# café\n" + BAD).encode("latin-1")
    crlf = b"\xef\xbb\xbf" + BAD.replace("\n", "\r\n").encode()
    project = make_project(tmp_path, {"src/pkg/bad.py": CLEAN})
    files = {"latin.py": (latin, 0o640), "crlf.py": (crlf, 0o755)}
    for name, (data, mode) in files.items():
        (project / "src/pkg" / name).write_bytes(data)
        os.chmod(project / "src/pkg" / name, mode)
    result = run("--fix", cwd=project)
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    assert result.stderr == "Fixed 2 diagnostics in 2 files.\n"
    for name, (data, mode) in files.items():
        path = project / "src/pkg" / name
        expected = data.replace(b"@dataclass(frozen=True)", b"@dataclass(frozen=True, eq=False)")
        assert path.read_bytes() == expected, name
        assert stat.S_IMODE(path.stat().st_mode) == mode, name
    assert b"caf\xe9" in (project / "src/pkg/latin.py").read_bytes()


def test_diff_prints_the_fix_and_writes_nothing(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    before = (project / "src/pkg/bad.py").read_bytes()
    result = run("--diff", cwd=project)
    assert result.returncode == 1
    assert result.stdout == (
        "--- a/src/pkg/bad.py\n+++ b/src/pkg/bad.py\n@@ -3,6 +3,6 @@\n"
        " from pkg.mid import Mid\n \n \n"
        "-@dataclass(frozen=True)  # keep this comment\n"
        "+@dataclass(frozen=True, eq=False)  # keep this comment\n"
        " class Bad(Mid):\n     name: str = \"\"\n")
    assert result.stderr == "Would fix 1 diagnostic in 1 file.\n"
    assert (project / "src/pkg/bad.py").read_bytes() == before
    (project / "src/pkg/bad.py").write_text(CLEAN)
    assert run("--diff", cwd=project).returncode == 0


def test_read_only_file_is_refused_with_a_message(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    bad = project / "src/pkg/bad.py"
    os.chmod(bad, 0o444)
    result = run("--fix", cwd=project)
    assert result.returncode == 1
    assert "not fixed: src/pkg/bad.py: the file is read-only" in result.stderr
    assert bad.read_text() == BAD


PLUGINS = '''\
from lintkit import Edit, Fix, Rule


def _classes(project, prefix):
    for facts in project.files:
        for cls in facts.classes:
            if cls.name.startswith(prefix):
                yield facts.path, cls


class BreaksSyntax(Rule):
    code = "XX001"
    name = "breaks-syntax"
    summary = "offers a fix that does not parse"

    def check(self, project):
        for path, cls in _classes(project, "Broken"):
            yield self.diagnostic(path, cls.span, "broken class",
                                  fix=Fix("break it", (Edit(path, *cls.span, "("),)))


class NeverDone(Rule):
    code = "XX002"
    name = "never-done"
    summary = "offers a fix that does not remove its diagnostic"

    def check(self, project):
        for path, cls in _classes(project, "Stubborn"):
            end = cls.span[2:]
            yield self.diagnostic(path, cls.span, "stubborn class",
                                  fix=Fix("grow", (Edit(path, *end, *end, "_x"),)))
'''


def test_fixes_that_break_the_file_or_never_finish_are_stopped(tmp_path: Path) -> None:
    project = make_project(tmp_path, {
        "tools/__init__.py": "", "tools/fixrules.py": PLUGINS,
        "src/pkg/broken.py": "class Broken:\n    pass\n",
        "src/pkg/stubborn.py": "class Stubborn:\n    pass\n"})
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        'src = ["src"]', 'src = ["src"]\nplugins = ["tools.fixrules:BreaksSyntax", '
        '"tools.fixrules:NeverDone"]'))
    result = run("--fix", "src", cwd=project)
    assert result.returncode == 1
    assert (project / "src/pkg/broken.py").read_text() == "class Broken:\n    pass\n"
    assert "not fixed: src/pkg/broken.py: the fixed source would not parse" in result.stderr
    assert (project / "src/pkg/stubborn.py").read_text() == "class Stubborn_x:\n    pass\n"
    assert ("not fixed: src/pkg/stubborn.py: the fix for XX002 at line 1 did not remove the "
            "diagnostic; applied once only") in result.stderr
    assert "src/pkg/broken.py:1:7: XX001 broken class" in result.stdout
    assert "src/pkg/stubborn.py:1:7: XX002 stubborn class" in result.stdout
    # Both remain, so neither is counted as fixed: only the base project's LL001 is.
    assert result.stderr.endswith("Fixed 1 diagnostic in 1 file.\n"), result.stderr


@dataclass
class _Result:
    root: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _diagnostic(path: str, fix: Fix) -> Diagnostic:
    return Diagnostic(Location(path, 1, 1, 1, 2), "XX001", "x", "m", fix=fix)


def test_overlapping_fixes_wait_for_the_next_pass() -> None:
    rename = Fix("b", (Edit("m.py", 1, 1, 1, 2, "y"),))
    whole = Fix("c", (Edit("m.py", 1, 1, 1, 6, "z = 3"),))
    value = Fix("a", (Edit("m.py", 1, 5, 1, 6, "2"),))
    text, applied = apply_fixes("x = 1\n", [rename, whole, value, value])
    assert (text, applied) == ("y = 2\n", [rename, value])
    first, second = (Fix(t, (Edit("m.py", 1, 6, 1, 6, t),)) for t in ("0", "9"))
    assert apply_fixes("x = 1\n", [first, second]) == ("x = 10\n", [first])
    with pytest.raises(FixError, match="beyond the end of the file"):
        apply_fixes("x = 1\n", [Fix("far", (Edit("m.py", 9, 1, 9, 1, "z"),))])


def test_an_unparsable_result_is_refused_and_the_file_is_untouched(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = 1\n")
    bad = Fix("break", (Edit("m.py", 1, 1, 1, 2, "("),))
    with pytest.raises(FixError, match="would not parse"):
        fix_source(b"x = 1\n", [bad])
    outcome = fix_results([_Result(tmp_path, [_diagnostic("m.py", bad)])], Disk())
    assert not outcome.changed and "would not parse" in outcome.refused[path.resolve()]
    assert path.read_bytes() == b"x = 1\n"
    rename = [Fix("f", (Edit("m.py", 1, 1, 1, 2, "y"),))]
    with pytest.raises(FixError, match="cannot tell the file's encoding"):
        fix_source(b"x = '\xff'\n", rename)
    with pytest.raises(FixError, match="does not decode as utf-8"):
        fix_source(b"x = 1\n\n\nz = '\xff'\n", rename)
