"""Every kind of file a team has: each gives normal results or a clear LL000, and the run
goes on.

Most tests run the real engine in-process on a real temporary project; the ones about what
reaches the terminal (file names, permissions) run the real command. The probe is an
``atexit.register`` call at import time (LL003), placed after non-ASCII text on its line so
that its column, counted in characters, shows any confusion of bytes and characters.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lintkit.cli.compose import compose
from lintkit.core.diagnostics import Diagnostic
from lintkit.engine.run import RunOptions, lint_paths
from lintkit.parsing.guard import screen, with_deep_stack

PYPROJECT = "[tool.lion-lint]\nrespect-gitignore = false\n"
HEADER = "import atexit\ndef f(): pass\n"
PROBE_LINE = 'x = "é"; atexit.register(f)\n'  # the call starts at character 10
PROBE = HEADER + PROBE_LINE


def project(root: Path, files: dict[str, bytes | str]) -> Path:
    (root / "pyproject.toml").write_text(PYPROJECT)
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode() if isinstance(content, str) else content
        path.write_bytes(data)
    return root


def lint(root: Path, options: RunOptions | None = None) -> list[Diagnostic]:
    results = lint_paths([root], None, compose, options or RunOptions())
    return [d for result in results for d in result.diagnostics]


def found(root: Path, options: RunOptions | None = None) -> list[tuple[str, int, int, str]]:
    return [(d.path, d.location.line, d.location.column, d.code) for d in lint(root, options)]


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None,
        **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return subprocess.run([sys.executable, "-m", "lintkit", *map(str, args)], cwd=cwd,
                          capture_output=True, env={**environment, **(env or {})}, timeout=300,
                          **kwargs)


# --- encodings and newlines: normal results at the right line and column --------------------

@pytest.mark.parametrize(("name", "data", "line"), [
    ("latin1.py", ("# -*- coding: latin-1 -*-\n" + PROBE).encode("latin-1"), 4),
    ("cp1252.py", ("# coding: cp1252\n" + PROBE.replace("é", "€")).encode("cp1252"), 4),
    ("bom.py", b"\xef\xbb\xbf" + PROBE.encode(), 3),
    ("bom_crlf.py", b"\xef\xbb\xbf" + PROBE.replace("\n", "\r\n").encode(), 3),
    ("crlf.py", PROBE.replace("\n", "\r\n").encode(), 3),
    ("lone_cr.py", PROBE.replace("\n", "\r").encode(), 3),
    ("formfeed.py", ("\f" + HEADER + "\f\n" + PROBE_LINE).encode(), 4),
    ("utf8.py", ("# ünïcödé 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 in a comment\n" + PROBE).encode(), 4),
])
def test_encodings_and_newlines_give_positions_in_lines_and_characters(
        tmp_path: Path, name: str, data: bytes, line: int) -> None:
    assert found(project(tmp_path, {name: data})) == [(name, line, 10, "LL003")]


@pytest.mark.parametrize("data", [
    ("\f" + HEADER + "\f\n" + PROBE_LINE).encode(),
    PROBE.replace("\n", "\r").encode(),
    ("# a line separator \u2028 and a next-line \x85 in a comment\n" + PROBE).encode(),
], ids=["form-feed", "lone-cr", "unicode-separators"])
def test_the_code_frame_shows_the_reported_line(tmp_path: Path, data: bytes) -> None:
    root = project(tmp_path, {"m.py": data})
    result = run("m.py", "--output-format", "full", "--color", "never", cwd=root)
    lines = result.stdout.decode().splitlines()
    number = int(lines[0].split(":")[1])
    shown = [line for line in lines if line.strip().startswith(f"{number} │")]
    assert shown == [f" {number} │ {PROBE_LINE.rstrip()}"], lines


def test_tabs_count_as_one_character(tmp_path: Path) -> None:
    source = HEADER + 'if True:\n\tx = "é";\tatexit.register(f)\n'
    assert found(project(tmp_path, {"tabs.py": source})) == [("tabs.py", 4, 11, "LL003")]


def test_waivers_work_with_lone_cr_newlines(tmp_path: Path) -> None:
    source = (HEADER + "atexit.register(f)  # lion-lint: ignore[LL003] -- reviewed\n"
              + "y = 1  # lion-lint: ignore[LL003] -- stale\n").replace("\n", "\r")
    assert found(project(tmp_path, {"m.py": source})) == [("m.py", 4, 8, "LL901")]


def test_syntax_errors_are_located_in_crlf_and_bom_files(tmp_path: Path) -> None:
    broken = b"\xef\xbb\xbf" + "x = 'é'\r\n\r\ndef f(:\r\n    pass\r\n".encode()
    (diagnostic,) = lint(project(tmp_path, {"broken.py": broken}))
    assert (diagnostic.code, diagnostic.location.line) == ("LL000", 3)
    assert diagnostic.message.startswith("syntax error")



# Invalid escapes, as in regexes written without r"": CPython warns about them when a
# literal is evaluated or a file parsed (SyntaxWarning from 3.12, printed by default).
ESCAPES = 'import atexit, re\nPATTERN = re.compile("\\d+\\.\\w")\natexit.register(print)\n'


def test_invalid_escapes_in_the_code_print_no_warning(tmp_path: Path) -> None:
    # broken.py is parsed by the interpreter to locate its error, and dotted.py (with 2,000
    # dots, so it could nest deep) first shown to it by the guard.
    root = project(tmp_path, {"m.py": ESCAPES, "broken.py": 'x = "\\d"\ndef f(:\n',
                              "dotted.py": 'x = "\\d"\n' + "y = a.b\n" * 2000})
    # Warnings always shown: what Python 3.12 shows by default, on any version.
    done = run(".", "--no-cache", "--output-format", "concise", cwd=root,
               env={"PYTHONWARNINGS": "always"})
    assert done.stderr == b""
    assert [line.split(" ")[1] for line in done.stdout.decode().splitlines()] == [
        "LL000", "LL003"]


def test_a_literal_with_invalid_escapes_keeps_its_value_with_warnings_as_errors() -> None:
    import warnings

    from lintkit.parsing.extract import extract

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        facts = extract("m.py", ESCAPES.encode(), False)
    (call,) = [c for c in facts.calls if c.func == "re.compile"]
    assert call.call.items[0].value == "\\d+\\.\\w"


# --- files that cannot be checked: LL000 with the reason, and the run goes on ----------------

def test_undecodable_bytes_without_a_cookie(tmp_path: Path) -> None:
    root = project(tmp_path, {"bad.py": b"x = 1\ny = '\xff\xfe'\n", "ok.py": PROBE})
    bad, ok = lint(root)
    assert (bad.path, bad.location.line, bad.location.column, bad.code) == ("bad.py", 2, 6, "LL000")
    assert "byte 0xff is not valid utf-8" in bad.message and "PEP 263" in bad.message
    assert (ok.path, ok.code) == ("ok.py", "LL003")


@pytest.mark.parametrize(("data", "line", "column"), [
    (b"y = '\xff'\n", 1, 6),                       # where the tokenizer looks for a cookie
    (b"# a comment\ny = '\xff'\n", 2, 6),
    (b"\xef\xbb\xbfy = '\xff'\n", 1, 6),            # a BOM is not a column
])
def test_undecodable_bytes_in_the_first_two_lines_are_located(
        tmp_path: Path, data: bytes, line: int, column: int) -> None:
    (diagnostic,) = lint(project(tmp_path, {"m.py": data}))
    location = diagnostic.location
    assert (diagnostic.code, location.line, location.column) == ("LL000", line, column)
    assert "byte 0xff is not valid utf-8" in diagnostic.message


def test_unknown_encoding_cookie(tmp_path: Path) -> None:
    (diagnostic,) = lint(project(tmp_path, {"m.py": b"# coding: no-such-codec\nx = 1\n"}))
    assert diagnostic.code == "LL000" and "unknown encoding: no-such-codec" in diagnostic.message


def test_a_cookie_that_lies(tmp_path: Path) -> None:
    data = "# coding: ascii\nx = 'é'\n".encode()
    (diagnostic,) = lint(project(tmp_path, {"m.py": data}))
    location = diagnostic.location
    assert (diagnostic.code, location.line, location.column) == ("LL000", 2, 6)
    assert "is not valid ascii" in diagnostic.message


def test_nul_byte_is_reported_where_it_is(tmp_path: Path) -> None:
    # LibCST would accept it inside a string; the interpreter refuses the file.
    (diagnostic,) = lint(project(tmp_path, {"m.py": b"x = 1\ny = 'a\0'\n"}))
    location = diagnostic.location
    assert (diagnostic.code, location.line, location.column) == ("LL000", 2, 7)
    assert "null bytes" in diagnostic.message


def test_inconsistent_tabs_are_the_interpreters_error(tmp_path: Path) -> None:
    (diagnostic,) = lint(project(tmp_path, {"m.py": "if True:\n    x = 1\n\ty = 2\n"}))
    assert (diagnostic.code, diagnostic.location.line) == ("LL000", 3)
    assert "inconsistent use of tabs and spaces" in diagnostic.message


def test_empty_and_comment_only_files_are_checked_and_clean(tmp_path: Path) -> None:
    root = project(tmp_path, {"empty.py": b"", "comments.py": "# only\n# comments é\n",
                              "pkg/__init__.py": b""})
    (result,) = lint_paths([root], None, compose, RunOptions())
    assert result.diagnostics == [] and result.files_checked == 3


def test_a_10_mb_generated_file_is_reported_not_parsed(tmp_path: Path) -> None:
    # LibCST would need some 20 GB for it (about 2 KB per byte of dense code) and minutes.
    generated = b"".join(b"VALUE_%d = call(a[%d], {%d: (%d,)})\n" % (i, i, i, i)
                         for i in range(300_000))
    assert len(generated) > 10_000_000
    root = project(tmp_path, {"generated.py": generated, "ok.py": PROBE})
    big, ok = lint(root)
    assert (big.path, big.location.line, big.code) == ("generated.py", 1, "LL000")
    assert big.message == (f"file too large to check: {len(generated):,} bytes, over "
                           "max-file-size (4,194,304 bytes); raise the limit or exclude the file")
    assert (ok.path, ok.code) == ("ok.py", "LL003")


def test_max_file_size_is_configurable(tmp_path: Path) -> None:
    padding = "# " + "x" * 1000 + "\n"
    root = project(tmp_path, {"small.py": PROBE, "large.py": padding * 3 + PROBE})
    (root / "pyproject.toml").write_text(PYPROJECT + "max-file-size = 2000\n")
    assert found(root) == [("large.py", 1, 1, "LL000"), ("small.py", 3, 10, "LL003")]
    (root / "pyproject.toml").write_text(PYPROJECT + "max-file-size = 0\n")  # no limit
    assert found(root) == [("large.py", 6, 10, "LL003"), ("small.py", 3, 10, "LL003")]


@pytest.mark.parametrize(("source", "reason"), [
    ("x = " + "(" * 100_000 + ")" * 100_000 + "\n", "too many nested parentheses"),
    ("x = " + "[" * 3000 + "]" * 3000 + "\n", "too many nested parentheses"),
    # The interpreter's parser refuses these on Python 3.11 and 3.12; 3.10's and 3.13's
    # build the tree, and the guard's own limit refuses it (LibCST's parser would crash).
    ("x = " + "1 + " * 20_000 + "1\n", "cannot parse: expressions nest deeper than"),
    ("x = a" + ".b" * 20_000 + "\n", "cannot parse: expressions nest deeper than"),
    ("x = " + "-" * 100_000 + "1\n", "nest deeper than the interpreter's parser allows"),
    ("x = " + "not " * 100_000 + "1\n", "nest deeper than the interpreter's parser allows"),
])
def test_nesting_beyond_the_parsers_limits(tmp_path: Path, source: str, reason: str) -> None:
    # Without the guard, LibCST's parser overflows the C stack on the first two (the
    # process dies), takes minutes on the others, and crashes on the chains too where the
    # interpreter's parser accepts them.
    root = project(tmp_path, {"deep.py": source, "ok.py": PROBE})
    deep, ok = lint(root)
    assert (deep.path, deep.code) == ("deep.py", "LL000") and reason in deep.message
    assert (ok.path, ok.code) == ("ok.py", "LL003")


def test_a_raised_recursion_limit_does_not_let_a_deep_chain_through() -> None:
    """The interpreter's parser builds deeper trees as the recursion limit is raised, and
    a program that calls the engine may have raised it: a chain LibCST's parser would
    crash on is refused whatever limit the guard first answered under (it kept its first
    answer, and let such a chain through)."""
    candidate = "".join(f"a{n}.b = 1\n" for n in range(2100)).encode()  # 2,100 dots
    chain = ("x = a" + ".b" * 5000 + "\n").encode()
    assert screen(candidate)[0] is None  # asked first under the default limit
    refused, tree = with_deep_stack(screen, chain)  # a limit of 100,000, and room for it
    assert refused is not None and "nest deeper than" in refused.message and tree is None


def test_brackets_in_strings_do_not_count_as_nesting(tmp_path: Path) -> None:
    source = 'TEXT = "' + "(" * 5000 + '"\n' + PROBE
    assert found(project(tmp_path, {"m.py": source})) == [("m.py", 4, 10, "LL003")]


@pytest.mark.parametrize("deep", [
    # A long implicit concatenation, as in the standard library's pydoc_data/topics.py
    # (whose longest has 2,281 parts in Python 3.12).
    'TEXT = {"k": ("a"\n' + '    "line"\n' * 2400 + ")}",
    # Chains the interpreter accepts (it refuses them from about 3,000 links).
    "TOTAL = " + " + ".join(["a"] * 1500),
    "LOOKUP = a" + ".b" * 1500,
], ids=["concatenation", "operators", "attributes"])
def test_a_legal_but_deep_tree_is_checked(tmp_path: Path, deep: str) -> None:
    # Walking such a chain exceeds the default recursion limit, and on Python 3.12
    # generating its code (for positions) exceeded the interpreter's fixed C recursion
    # limit from some 750 links: the file came out as a false LL000.
    source = HEADER + deep + "\n" + PROBE_LINE
    line = source.count("\n")
    assert found(project(tmp_path, {"m.py": source})) == [("m.py", line, 10, "LL003")]


def test_python_3_12_syntax_the_parser_accepts(tmp_path: Path) -> None:
    source = (HEADER + "type Pair[T] = tuple[T, T]\n"
              "def first[T: (int, str), *Ts, **P](x: T) -> T:\n    return x\n"
              "class Box[T]:\n    item: T\n"
              'y = f"{f"{f"{1}"}"}"; atexit.register(f)\n')
    assert found(project(tmp_path, {"m.py": source})) == [("m.py", 8, 23, "LL003")]


def test_code_libcst_cannot_parse_is_not_blamed_on_the_file(tmp_path: Path) -> None:
    # Valid Python (the interpreter accepts it) that LibCST's grammar does not.
    (diagnostic,) = lint(project(tmp_path, {"m.py": "def f():\n    (x): int = 1\n"}))
    assert diagnostic.code == "LL000"
    assert diagnostic.message.startswith("cannot parse: LibCST's parser rejects this code, "
                                         "which the interpreter accepts")


@pytest.mark.parametrize("source, place", [
    ("def f():\n    (x): int = 1\n\n    y = 2\n", (2, 10)),
    ("x = 1\n(pars): bool = True\n\ny = 2\n", (2, 9)),
    ("x = 1\n\n\n(a): int\n", (4, 6)),
])
def test_code_libcst_cannot_parse_is_reported_where_its_parser_stopped(
        tmp_path: Path, source: str, place: tuple[int, int]) -> None:
    # At the annotation LibCST could not take, not at the statement after it.
    (diagnostic,) = lint(project(tmp_path, {"m.py": source}))
    assert (diagnostic.location.line, diagnostic.location.column) == place


# --- the file system ------------------------------------------------------------------------

def test_symlink_loops_do_not_trap_the_walk(tmp_path: Path) -> None:
    root = project(tmp_path, {"pkg/mod.py": PROBE})
    (root / "pkg" / "up").symlink_to("..")
    (root / "pkg" / "self").symlink_to("self")  # a link to itself: ELOOP when followed
    (root / "loop.py").symlink_to("loop.py")
    assert found(root) == [("pkg/mod.py", 3, 10, "LL003")]


def test_a_symlinked_file_named_alone_is_its_projects_file(tmp_path: Path) -> None:
    # The link's target lives outside the project; named on the command line (or as an
    # editor's buffer) the link must be linted where it is, as a directory run sees it.
    (tmp_path / "project").mkdir()
    root = project(tmp_path / "project", {"pkg/mod.py": "x = 1\n"})
    outside = tmp_path / "elsewhere" / "shared.py"
    outside.parent.mkdir()
    outside.write_text(PROBE, encoding="utf-8")
    (root / "pkg" / "shared.py").symlink_to(outside)
    expected = "pkg/shared.py:3:10: LL003 "
    assert run(".", cwd=root).stdout.decode().startswith(expected)

    named = run("pkg/shared.py", cwd=root)
    buffer = run("--stdin-filename", "pkg/shared.py", cwd=root, input=PROBE.encode())

    assert named.returncode == buffer.returncode == 1, named.stderr + buffer.stderr
    assert named.stdout.decode().startswith(expected)
    assert buffer.stdout.decode().startswith(expected)
    imports = run("imports", "pkg/shared.py", cwd=root)
    assert imports.returncode == 0, imports.stderr
    assert imports.stdout.decode().startswith("pkg.shared\n")


def test_a_directory_named_like_a_module(tmp_path: Path) -> None:
    root = project(tmp_path, {"weird.py/inner.py": PROBE})
    assert found(root) == [("weird.py/inner.py", 3, 10, "LL003")]
    named = run("weird.py", cwd=root)
    assert named.returncode == 1
    assert named.stdout.decode().startswith("weird.py/inner.py:3:10: LL003 ")


def test_a_file_deleted_between_discovery_and_reading(tmp_path: Path) -> None:
    root = project(tmp_path, {"a.py": PROBE, "b.py": PROBE, "c.py": PROBE})

    def delete_the_next_file(done: int, total: int) -> None:
        # Called as phase 1 finishes each file, after discovery listed all three.
        (root / "c.py").unlink(missing_ok=True)

    found_ = found(root, RunOptions(progress=delete_the_next_file, jobs=1))
    assert found_[:2] == [("a.py", 3, 10, "LL003"), ("b.py", 3, 10, "LL003")]
    assert found_[2:] == [("c.py", 1, 1, "LL000")]
    (vanished,) = [d for d in lint(root) if d.path == "c.py"] or [None]
    assert vanished is None  # the next run no longer sees it at all


def _without_file_permission_override() -> None:
    """In the child, before exec: drop the capabilities that let root read any file."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2
    for capability in (cap_dac_override, cap_dac_read_search):
        if libc.prctl(pr_capbset_drop, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _can_drop_capabilities() -> bool:
    probe = subprocess.run([sys.executable, "-c", "pass"],
                           preexec_fn=_without_file_permission_override, capture_output=True)
    return probe.returncode == 0


def test_unreadable_file_and_directory(tmp_path: Path) -> None:
    root = project(tmp_path, {"secret.py": PROBE, "ok.py": PROBE, "locked/inner.py": PROBE})
    (root / "secret.py").chmod(0)
    (root / "locked").chmod(0)
    preexec = None
    if os.geteuid() == 0:
        # Root reads any file whatever its mode; without CAP_DAC_OVERRIDE and
        # CAP_DAC_READ_SEARCH it obeys the mode bits like anyone else.
        if not sys.platform.startswith("linux") or not _can_drop_capabilities():
            pytest.skip("running as root without the capability to drop file-permission "
                        "overrides (prctl PR_CAPBSET_DROP refused)")
        preexec = _without_file_permission_override
    try:
        result = run(".", "--no-cache", cwd=root, preexec_fn=preexec)
    finally:
        (root / "locked").chmod(0o755)
    assert result.returncode == 1, result.stderr
    assert result.stdout.decode().splitlines() == [
        "locked:1:1: LL000 cannot read directory: Permission denied",
        "ok.py:3:10: LL003 atexit.register() registers at import time: calls atexit.register "
        "(a registration-callables entry)",
        "secret.py:1:1: LL000 cannot read file: Permission denied",
    ]


def test_non_utf8_file_names_in_every_format(tmp_path: Path) -> None:
    root = project(tmp_path, {"pkg/__init__.py": ""})
    name = b"caf\xe9.py"  # Latin-1: not valid UTF-8
    (root / "pkg").joinpath(os.fsdecode(name)).write_text(PROBE)
    env = {"PYTHONIOENCODING": "utf-8:strict"}  # as on a UTF-8 terminal
    concise = run(".", cwd=root, env=env)
    assert concise.returncode == 1, concise.stderr
    assert concise.stdout.startswith(b"pkg/caf\xe9.py:3:10: LL003 ")
    again = run(".", cwd=root, env=env)  # from the cache this time
    assert again.stdout == concise.stdout
    document = json.loads(run(".", "--output-format", "json", cwd=root, env=env).stdout
                          .decode("utf-8"))
    assert os.fsencode(document["diagnostics"][0]["path"]) == b"pkg/caf\xe9.py"
    sarif = json.loads(run(".", "--output-format", "sarif", cwd=root, env=env).stdout
                       .decode("utf-8"))
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pkg/caf%E9.py"
    full = run(".", "--output-format", "full", "--color", "never", cwd=root, env=env)
    assert full.returncode == 1 and b"pkg/caf\xe9.py:3:10" in full.stdout
