"""Fuzzing: generated projects go through phase 1 and every rule without an exception.

A bounded number of examples runs here; ``python benchmarks/sweep.py --fuzz --examples N``
runs a longer session of the same properties (tests/fuzz_support.py says what they are).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_support import broken_projects, check_project, projects

# No example database, so every run explores afresh; a failure prints the blob that
# replays it (@reproduce_failure), since a CI log is the only record of a random example.
SUITE = settings(max_examples=30, deadline=None, database=None, print_blob=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SUITE
@given(projects())
def test_generated_projects(files: dict[str, str]) -> None:
    check_project(files)


@SUITE
@given(broken_projects())
def test_broken_projects(files: dict[str, str]) -> None:
    check_project(files)


def test_grammar_generated_modules() -> None:
    hypothesmith = pytest.importorskip("hypothesmith")

    @settings(SUITE, max_examples=15)
    @given(projects(hypothesmith.from_grammar()))
    def modules_from_the_grammar(files: dict[str, str]) -> None:
        check_project(files)

    modules_from_the_grammar()


def test_the_property_catches_a_lost_file() -> None:
    # A file neither parser accepts must be reported; the property fails if it is not.
    files = {"pkg/__init__.py": "", "pkg/a.py": "def f(:\n"}
    diagnostics = check_project(files)
    assert [(d.path, d.code) for d in diagnostics] == [("pkg/a.py", "LL000")]
