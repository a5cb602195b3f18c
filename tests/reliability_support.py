"""Shared by tests/test_reliability_*.py: a project big enough that a run takes seconds,
each of whose files has one fixable LL001 violation."""

from __future__ import annotations

from pathlib import Path

from integration_support import BAD, make_project

FIXED = BAD.replace("@dataclass(frozen=True)", "@dataclass(frozen=True, eq=False)")
# Filler makes each file cost LibCST a while (in phase 1, and in the re-parse --fix does
# before each write), so that a run spends seconds on its files one after another.
FILLER = "".join(f"\n\ndef helper_{i}(a, b=({i}, [{i}]), *c, **d):\n    return a.b(c)[d]\n"
                 for i in range(150))


def many_bad_files(root: Path, count: int) -> dict[Path, tuple[bytes, bytes]]:
    """Write the project; (old, fixed) bytes of each of the ``count`` added files."""
    make_project(root)
    expected = {}
    for number in range(count):
        old = (BAD.replace("Bad", f"Bad{number}") + FILLER).encode()
        new = (FIXED.replace("Bad", f"Bad{number}") + FILLER).encode()
        path = root / "src/pkg" / f"m{number:03}.py"
        path.write_bytes(old)
        expected[path] = (old, new)
    return expected
