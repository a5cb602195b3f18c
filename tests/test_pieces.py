"""Large modules are parsed in pieces of whole top-level statements: where the cuts fall,
when a file is parsed whole instead, and that the facts do not change."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lintkit.parsing import extract as extract_module
from lintkit.parsing.pieces import pieces
from tests.integration_support import make_project, run
from tests.test_phase1_exactness import AWKWARD, _facts_json, _stdlib_sample


def _first_lines(source: str, piece_bytes: int = 0) -> list[int] | None:
    cut = pieces(source.encode(), piece_bytes)
    if cut is None:
        return None
    assert "".join(text for _, text in cut) == source  # nothing lost, nothing repeated
    return [line for line, _ in cut]


def test_cuts_fall_only_between_top_level_statements() -> None:
    source = (
        "import os\n"               # 1
        "x = 1; y = 2\n"            # 2: one line, two statements: never split
        "items = [\n"               # 3
        "    1,\n"                  # 4
        "]\n"                       # 5
        "# about f\n"               # 6: a comment goes with the statement before it
        "\n"                        # 7
        "@decorator(\n"             # 8: the decorators start the definition
        "    arg=1)\n"              # 9
        "@other\n"                  # 10
        "def f():\n"                # 11
        "    return 1\n"            # 12
        "\n"                        # 13
        "class C:\n"                # 14
        "    pass\n"                # 15
    )
    assert _first_lines(source) == [1, 2, 3, 8, 14]


def test_a_continued_line_is_never_cut() -> None:
    source = "x = 1 + \\\n    2\ny = 3\n"
    assert _first_lines(source) == [1, 3]


def test_pieces_grow_by_whole_statements_to_the_piece_size() -> None:
    source = "".join(f"name_{n} = {n}\n" for n in range(100))  # 11 bytes a line, then 12
    first_lines = _first_lines(source, piece_bytes=120)
    assert first_lines is not None and first_lines[:3] == [1, 12, 22]  # 122 bytes, then 120
    cut = pieces(source.encode(), 120)
    assert cut is not None and all(len(text) >= 120 for _, text in cut[:-1])


@pytest.mark.parametrize("source", [
    b"x = 1\r\ny = 2\r\n",                                  # CRLF
    b"x = 1\ry = 2\r",                                      # lone CR
    b"\xef\xbb\xbfx = 1\ny = 2\n",                          # BOM
    b"# -*- coding: latin-1 -*-\nx = '\xe9'\ny = 2\n",     # another encoding
    b"x = 1\ndef f(:\n    pass\n",                          # a syntax error
    b"def f():\n    x = 1\n    y = 2\n",                    # one statement: nothing to cut
    b"",
], ids=["crlf", "cr", "bom", "latin-1", "syntax-error", "one-statement", "empty"])
def test_a_file_in_doubt_is_parsed_whole(source: bytes) -> None:
    assert pieces(source, 0) is None


@pytest.mark.parametrize("sample", [*_stdlib_sample(), "awkward"],
                         ids=lambda s: s if isinstance(s, str) else s.name)
def test_facts_are_those_of_the_whole_parse_with_a_cut_at_every_statement(
        sample: Path | str, monkeypatch: pytest.MonkeyPatch) -> None:
    source = AWKWARD.encode() if sample == "awkward" else Path(sample).read_bytes()
    monkeypatch.setattr(extract_module, "PIECEWISE_MIN_BYTES", sys.maxsize)
    whole = _facts_json("m.py", source)
    cut_into: list[int] = []

    def cut_everywhere(source: bytes, tree: ast.Module | None = None
                       ) -> list[tuple[int, str]] | None:
        found = pieces(source, piece_bytes=0, tree=tree)
        cut_into.append(len(found or ()))
        return found

    monkeypatch.setattr(extract_module, "PIECEWISE_MIN_BYTES", 0)
    monkeypatch.setattr(extract_module, "pieces", cut_everywhere)
    assert _facts_json("m.py", source) == whole
    assert cut_into and cut_into[0] >= 10  # it was cut, and the pieces were parsed
    assert '"error":null' in whole.replace(" ", "")


def test_a_cut_libcst_refuses_falls_back_to_the_whole_parse(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython places a decorator written as ``@\\`` on the line after the ``@``: the cut
    falls inside the statement, LibCST rejects the piece, and the file is parsed whole."""
    source = b"x = 1\n@\\\ndeco\ndef f(): pass\ny = f()\n"
    first_lines = [line for line, _ in pieces(source, 0) or ()]
    assert 3 in first_lines  # the cut is inside the decorator
    monkeypatch.setattr(extract_module, "PIECEWISE_MIN_BYTES", sys.maxsize)
    whole = _facts_json("m.py", source)
    monkeypatch.setattr(extract_module, "PIECEWISE_MIN_BYTES", 0)
    monkeypatch.setattr(extract_module, "pieces", functools.partial(pieces, piece_bytes=0))
    assert _facts_json("m.py", source) == whole
    assert '"error":null' in whole.replace(" ", "")


def test_a_large_module_is_parsed_by_cpython_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard has CPython parse a file that could nest deep (any module with 2,000 dots
    could, as most large ones have); the cuts are taken from that tree, not a second parse."""
    source = _large_module(600).encode()
    assert len(source) >= extract_module.PIECEWISE_MIN_BYTES and source.count(b"(") > 2000
    whole_parses: list[int] = []
    parse = ast.parse

    def counting_parse(text: str | bytes, *args: object, **kwargs: object) -> ast.AST:
        if len(text) == len(source):
            whole_parses.append(len(text))
        return parse(text, *args, **kwargs)  # type: ignore[arg-type]

    cut_into: list[int] = []

    def counting_pieces(source: bytes, tree: ast.Module | None = None
                        ) -> list[tuple[int, str]] | None:
        found = pieces(source, tree=tree)
        cut_into.append(len(found or ()))
        return found

    monkeypatch.setattr(ast, "parse", counting_parse)
    monkeypatch.setattr(extract_module, "pieces", counting_pieces)
    facts = extract_module.extract("m.py", source, False)
    assert facts.error is None and len(facts.classes) == 600
    assert cut_into and cut_into[0] > 1  # it was cut
    assert whole_parses == [len(source)]


def _large_module(functions: int) -> str:
    parts = ["import os\nfrom lionish import Params\n"]
    for n in range(functions):
        parts.append(
            f"\n\nclass Model{n}(Params):\n"
            f"    field_{n}: int = compute({n}, name='value {n}', flags=[1, 2, 3])\n\n"
            f"    def method_{n}(self, value):\n"
            f"        return [os.path.join(str(v), '{n}') for v in value if v]\n"
        )
    return "".join(parts)


# Peak resident memory of one process that extracts a generated module of about 300 KB.
# VmHWM, not ru_maxrss: Linux carries a process's ru_maxrss over from the parent it was
# forked from (pytest's, which may well be larger than anything measured here).
_PEAK = """
import gc, sys
from lintkit.parsing import extract as extract_module

def peak_kb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

source = open(sys.argv[1], "rb").read()
if sys.argv[2] == "whole":
    extract_module.PIECEWISE_MIN_BYTES = sys.maxsize
extract_module.extract("warm.py", b"x = f(1)\\n", False)
gc.disable()
before = peak_kb()
facts = extract_module.extract("m.py", source, False)
assert facts.error is None and len(facts.classes) > 1000
print(peak_kb() - before)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
def test_a_large_module_costs_a_fraction_of_its_whole_trees_memory(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(_large_module(1500))
    assert module.stat().st_size > 250_000

    def growth(arm: str) -> int:
        done = subprocess.run([sys.executable, "-c", _PEAK, str(module), arm],
                              capture_output=True, text=True, check=True)
        return int(done.stdout)

    whole, piecewise = growth("whole"), growth("pieces")
    assert whole > 100_000  # KB: the whole tree is large, so the comparison means something
    assert piecewise < whole / 2, (piecewise, whole)


def test_findings_in_a_large_module_keep_their_lines(tmp_path: Path) -> None:
    text = _large_module(1200).replace("from lionish import Params",
                                       "from dataclasses import dataclass\nfrom pkg.mid import Mid")
    text = text.replace("(Params):", "(Mid):")
    text += "\n\n@dataclass(frozen=True)\nclass Late(Mid):\n    pass\n"
    make_project(tmp_path, {"src/pkg/big.py": text})
    assert len(text.encode()) > 2 * extract_module.PIECEWISE_MIN_BYTES
    late_line = text.count("\n", 0, text.index("class Late")) + 1
    result = run("check", "--no-cache", "--select", "LL001", "--output-format", "json",
                 cwd=tmp_path)
    found = {(d["path"], d["line"], d["column"]) for d in json.loads(result.stdout)["diagnostics"]}
    assert found == {("src/pkg/bad.py", 7, 7), ("src/pkg/big.py", late_line, 7)}, result.stderr
