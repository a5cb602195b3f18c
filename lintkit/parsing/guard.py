"""Keep pathological sources from crashing or hanging phase 1.

A file with a NUL byte is refused outright (the interpreter never runs it). The rest of
this module is about depth.

LibCST's native parser recurses once per level of nesting. Past roughly 1,500 nested
brackets it overflows the C stack and the whole process dies (a segfault: no ``except``
catches it, and every other file's results die with it); long unbracketed chains
(``1+1+...``, ``a.b.b...``, ``a[0][0]...``, ``- - ... 1``) make it quadratic. The
interpreter refuses such code anyway: CPython allows 200 nested brackets and builds no
syntax tree deeper than its recursion limit. So a file that *could* be that deep, judged by
a scan of its bytes that costs microseconds, is first shown to CPython's parser, which fails
safely; LibCST sees it only if the interpreter accepts it or objects to something else.

Python code that walks a LibCST tree (the extractor, the position pass) recurses too, and a
legal file can be deeper than the default recursion limit allows: a long implicit string
concatenation is a chain of nested nodes. ``with_deep_stack`` reruns such a file's work on a
thread with a large stack and recursion limit. (That limit is all the walk needs: the
position pass keeps LibCST's code generation from recursing through C, where Python 3.12
counts against a fixed limit of its own; see ``lintkit.parsing.cstparse.flat_codegen``.)
"""

from __future__ import annotations

import functools
import sys
import threading
from array import array
from collections.abc import Callable
from itertools import accumulate
from typing import TYPE_CHECKING, TypeVar

from lintkit.core.facts import ParseError

if TYPE_CHECKING:
    import ast

T = TypeVar("T")

#: CPython's tokenizer refuses more nested brackets than this ("too many nested parentheses").
MAX_BRACKET_DEPTH = 200
#: Beyond this depth of brackets LibCST's parser is near its crash; never let it try.
_CRASH_DEPTH = 1000
#: A chain this long or longer is the only way to nest deep without brackets; each link needs
#: one of these tokens, so a file with fewer of each holds no such chain. CPython refuses
#: chains from about 3,000 links (its recursion limit of 1,000 times three).
_CHAIN_TOKENS = (b".", b"+", b"-", b"~", b"*", b"(", b"[", b"not", b"if", b"lambda", b"await")
_MAX_CHAIN = 2000
#: LibCST's parser takes chains of 5,000 links on a thread with the usual 8 MiB stack and
#: crashes from about 8,000; the deepest tree it is given.
_MAX_TREE_DEPTH = 4000

_STEPS = bytes.maketrans(b"([{)]}", b"\x01\x01\x01\xff\xff\xff")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"()[]{}")

_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 100_000
_deep_lock = threading.Lock()


def bracket_depth(source: bytes) -> int:
    """The deepest bracket nesting, counting brackets inside strings and comments too (an
    upper bound of the real depth, up to unbalanced brackets in text)."""
    steps = source.translate(_STEPS, _NOT_BRACKETS)
    return max(0, max(accumulate(array("b", steps)), default=0))


def _could_be_deep(source: bytes) -> bool:
    return (bracket_depth(source) > MAX_BRACKET_DEPTH
            or any(source.count(token) >= _MAX_CHAIN for token in _CHAIN_TOKENS))


def screen(source: bytes) -> tuple[ParseError | None, ast.Module | None]:
    """Why phase 1 will not parse ``source`` (None when LibCST may parse it), and CPython's
    tree of it when the screen had to build one (None otherwise): a large module's cuts
    (``lintkit.parsing.pieces``) are taken from that same tree rather than a second parse."""
    if b"\0" in source:
        return _nul_byte(source), None
    return _too_deep(source)


def _nul_byte(source: bytes) -> ParseError:
    # LibCST accepts a NUL inside a string literal; the interpreter refuses the whole file.
    offset = source.index(b"\0")
    line_start = source.rfind(b"\n", 0, offset) + 1
    column = len(source[line_start:offset].decode("utf-8", "replace")) + 1
    return ParseError(source.count(b"\n", 0, offset) + 1, column,
                      "syntax error: source code cannot contain null bytes")


def _too_deep(source: bytes) -> tuple[ParseError | None, ast.Module | None]:
    """Only a file that could nest deeper than the interpreter allows is asked about; for it,
    CPython's parser decides (it only parses: nothing is compiled or run)."""
    if not _could_be_deep(source):
        return None, None
    import ast

    try:
        tree = ast.parse(source)
    except (RecursionError, MemoryError):
        return ParseError(1, 1, "cannot parse: expressions nest deeper than the interpreter's "
                                "parser allows"), None
    except SyntaxError as error:
        depth_error = "too many nested parentheses" in (error.msg or "")
        if depth_error or bracket_depth(source) > _CRASH_DEPTH:
            prefix = "cannot parse" if depth_error else "syntax error"
            return ParseError(error.lineno or 1, max(error.offset or 1, 1),
                              f"{prefix}: {error.msg}"), None
        return None, None  # newer syntax, or an ordinary error LibCST reports in its turn
    except ValueError:
        return None, None
    if (not _parser_refuses_deep_trees(sys.getrecursionlimit())
            and _deeper_than(tree, _MAX_TREE_DEPTH)):
        return ParseError(1, 1, "cannot parse: expressions nest deeper than LibCST's parser "
                                f"can take (over {_MAX_TREE_DEPTH} levels)"), None
    return None, tree


@functools.cache
def _parser_refuses_deep_trees(recursion_limit: int) -> bool:
    """Whether this interpreter's parser, under ``recursion_limit``, refuses a tree LibCST's
    cannot take. Python 3.11 and 3.12 refuse chains from about 3,000 links at the default
    limit of 1,000, and take deeper ones as the limit is raised (a program that lints with
    a raised limit, for one); 3.10 parses any (its compiler refuses them) and 3.13 up to
    about 10,000, where LibCST's parser crashes from about 8,000."""
    import ast

    try:
        ast.parse("x = " + "1 + " * _MAX_TREE_DEPTH + "1")
    except (RecursionError, MemoryError):
        return True
    return False


def _deeper_than(tree: object, limit: int) -> bool:
    """Whether an ``ast`` tree nests deeper than ``limit`` (walked without recursion: it
    may be deeper than Python's recursion limit)."""
    import ast

    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))  # type: ignore[arg-type]
    return False


def with_deep_stack(function: Callable[..., T], *args: object) -> T:
    """``function(*args)`` on a thread with a 512 MiB stack and a high recursion limit.

    The recursion limit is the interpreter's, so it is raised only while the thread runs and
    the caller waits; the lock keeps two such runs from interleaving their limits.
    """
    outcome: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(function(*args))
        except BaseException as error:  # re-raised on the calling thread
            failure.append(error)

    with _deep_lock:
        limit = sys.getrecursionlimit()
        size = threading.stack_size()
        sys.setrecursionlimit(max(limit, _DEEP_RECURSION_LIMIT))
        try:
            threading.stack_size(_DEEP_STACK_BYTES)
            try:
                thread = threading.Thread(target=target, name="lion-lint-deep-file", daemon=True)
                thread.start()
            finally:
                threading.stack_size(size)
            thread.join()
        finally:
            sys.setrecursionlimit(limit)
    if failure:
        raise failure[0]
    return outcome[0]
