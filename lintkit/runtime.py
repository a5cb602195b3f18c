"""What importing a module loads at run time, measured in a fresh interpreter.

This executes the project's code (that is what importing does), so lion-lint does it only on
request: ``lion-lint imports MODULE --runtime``, or a test that calls
:func:`assert_import_does_not_load`::

    from lintkit.runtime import assert_import_does_not_load

    def test_neutral_layer_stays_light():
        assert_import_does_not_load("lionagi.ln.types", ["pydantic", "sqlalchemy"])

The probe runs in a subprocess so that nothing the caller already imported hides a load,
and records for each newly loaded module which module's code was running when it was
imported, so a failure shows the chain.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lintkit.core.imports import ModulePattern

DEFAULT_TIMEOUT = 120.0

# Runs in the target interpreter: standard library only, nothing imported before the
# snapshot that the import under test could load itself.
_PROBE = r"""
import sys
_spec = eval(sys.argv[1])  # a dict literal lion-lint wrote; json would load modules first
sys.path[:0] = _spec["path"]
_before = set(sys.modules)
_importers = {}


# The import system's own frames, by the names their code runs under. Not every importlib
# module: importlib.util's own imports (importlib._abc) are its doing, not its caller's.
_MACHINERY = ("importlib", "importlib._bootstrap", "importlib._bootstrap_external",
              "_frozen_importlib", "_frozen_importlib_external")


class _Watch:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name not in _importers:
            # The importer is the code that asked, past the import machinery: a package's
            # lazy __getattr__ (pydantic's) imports for itself, not for its caller.
            frame = sys._getframe(1)
            while frame is not None and frame.f_globals.get("__name__", "") in _MACHINERY:
                frame = frame.f_back
            importer = frame.f_globals.get("__name__", "") if frame is not None else ""
            _importers[name] = "" if importer == "__main__" else importer
        return None


sys.meta_path.insert(0, _Watch)
_error = None
_started = __import__("time").perf_counter()
try:
    __import__(_spec["module"])
except BaseException as _exc:
    _error = (_exc, _exc.__traceback__)
_seconds = __import__("time").perf_counter() - _started
sys.meta_path.remove(_Watch)
# A name put into sys.modules for a module already there under another name loads nothing
# (multiprocessing names __main__ again as __mp_main__): not a load, so not reported.
_names = {}
for _module in list(sys.modules.values()):
    _names[id(_module)] = _names.get(id(_module), 0) + 1
# In the order their imports started (sys.modules re-inserts a module when it finishes).
_new = [m for m in list(sys.modules) if m not in _before
        and (m in _importers or _names[id(sys.modules[m])] == 1)]
_loaded = [m for m in _importers if m in sys.modules and m not in _before]
_loaded += [m for m in _new if m not in _importers]
# Put into sys.modules without an import (typing's "typing.io" alias): by its package. One
# with no package and no spec was made in memory by code already loaded (Cython's
# cython_runtime), which an import statement cannot name: not the project's doing.
for _name in _new:
    if _name not in _importers:
        _made = getattr(sys.modules[_name], "__spec__", None) is None
        _importers[_name] = _name.rpartition(".")[0] or ("<not imported>" if _made else "")

import json
import traceback
import importlib.util

_missing = []
for _name in _spec["check"]:
    if _name not in sys.modules:
        try:
            if importlib.util.find_spec(_name) is None:
                _missing.append(_name)
        except (ImportError, ValueError):
            _missing.append(_name)
_files = {}
for _name in _loaded:
    _file = getattr(sys.modules.get(_name), "__file__", None)
    if isinstance(_file, str):
        _files[_name] = _file
with open(_spec["out"], "w", encoding="utf-8") as _out:
    json.dump({
        "python": sys.executable,
        "version": "%d.%d.%d" % sys.version_info[:3],
        "loaded": _loaded,
        "importers": _importers,
        "preloaded": sorted(_before),
        "files": _files,
        "stdlib": sorted(getattr(sys, "stdlib_module_names", ())),
        "missing": _missing,
        "seconds": _seconds,
        "error": None if _error is None else "".join(
            traceback.format_exception_only(type(_error[0]), _error[0])).strip(),
        "traceback": None if _error is None else "".join(
            traceback.format_exception(type(_error[0]), _error[0], _error[1])),
    }, _out)
"""


class ProbeError(Exception):
    """The interpreter could not be run, or did not report (not: the import failed)."""


@dataclass(frozen=True)
class RuntimeImport:
    """What importing ``module`` in a fresh interpreter loaded."""

    module: str
    python: str
    version: str
    #: Modules new in sys.modules after the import, in the order their imports started.
    loaded: tuple[str, ...]
    #: For each module looked up during the import, the module whose code was running
    #: ("" for the import itself).
    importers: dict[str, str]
    #: Modules already in sys.modules before the import (the interpreter's start-up).
    preloaded: frozenset[str]
    files: dict[str, str]
    stdlib: frozenset[str]
    #: Of the names asked about, those the interpreter cannot find (not installed).
    missing: frozenset[str]
    seconds: float
    error: str | None = None
    traceback: str | None = None

    def chain(self, module: str) -> list[str]:
        """``[self.module, ..., module]``: who imported whom, as the interpreter ran it."""
        chain = [module]
        seen = {module}
        current = self.importers.get(module, "")
        while current and current not in seen:
            chain.append(current)
            seen.add(current)
            current = self.importers.get(current, "")
        if chain[-1] != self.module:
            chain.append(self.module)
        chain.reverse()
        return chain


def import_in_subprocess(module: str, *, python: str | os.PathLike[str] | None = None,
                         sys_path: Sequence[str | os.PathLike[str]] | None = None,
                         cwd: str | os.PathLike[str] | None = None, check: Iterable[str] = (),
                         timeout: float = DEFAULT_TIMEOUT) -> RuntimeImport:
    """Import ``module`` in a fresh ``python`` (default: this interpreter) and report what it
    loaded. ``sys_path`` entries go first on its sys.path (default: this process's sys.path
    when ``python`` is this interpreter, nothing otherwise). ``check`` names top-level
    modules to test for being installed when the import did not load them.
    Raises :class:`ProbeError` if the interpreter cannot run or times out; a failing import
    is reported in ``error``."""
    executable = str(python) if python is not None else sys.executable
    if sys_path is None:
        sys_path = sys.path if python is None else ()
    with tempfile.TemporaryDirectory(prefix="lion-lint-probe-") as directory:
        out = Path(directory) / "result.json"
        spec = {"module": module, "out": str(out), "check": sorted(set(check)),
                "path": [os.fspath(p) for p in sys_path]}
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            completed = subprocess.run([executable, "-c", _PROBE, repr(spec)], cwd=cwd, env=env,
                                       capture_output=True, text=True, timeout=timeout)
        except FileNotFoundError:
            raise ProbeError(f"interpreter not found: {executable}") from None
        except PermissionError:
            raise ProbeError(f"interpreter cannot be run: {executable}") from None
        except subprocess.TimeoutExpired:
            raise ProbeError(f"importing {module} in {executable} did not finish within "
                             f"{timeout:g} s") from None
        if not out.is_file():
            detail = (completed.stderr or completed.stdout).strip().splitlines()
            raise ProbeError(f"{executable} exited with status {completed.returncode} before "
                             f"reporting" + (f": {detail[-1]}" if detail else ""))
        data = json.loads(out.read_text(encoding="utf-8"))
    return RuntimeImport(
        module=module, python=data["python"] or executable, version=data["version"],
        loaded=tuple(data["loaded"]), importers=dict(data["importers"]),
        preloaded=frozenset(data["preloaded"]), files=dict(data["files"]),
        stdlib=frozenset(data["stdlib"]), missing=frozenset(data["missing"]),
        seconds=float(data["seconds"]), error=data["error"], traceback=data["traceback"])


def assert_import_does_not_load(module: str, forbidden: Iterable[str], *,
                                python: str | os.PathLike[str] | None = None,
                                sys_path: Sequence[str | os.PathLike[str]] | None = None,
                                cwd: str | os.PathLike[str] | None = None,
                                timeout: float = DEFAULT_TIMEOUT) -> RuntimeImport:
    """Assert that importing ``module`` in a fresh interpreter loads none of ``forbidden``
    (module names with their submodules; ``*`` globs as in ``[[tool.lion-lint.boundaries]]``).

    Raises AssertionError naming each forbidden module loaded, with the chain of modules
    that imported it, or when the import itself fails. Returns the measurement."""
    patterns = [ModulePattern(p) for p in forbidden]
    result = import_in_subprocess(module, python=python, sys_path=sys_path, cwd=cwd,
                                  timeout=timeout)
    if result.error is not None:
        raise AssertionError(f"importing {module} failed in {result.python}: {result.error}")
    problems = []
    for pattern in patterns:
        hits = [m for m in result.loaded if pattern.matches(m)]
        if hits:
            first = hits[0]
            problems.append(f"  {first} ({pattern.text}): " + " -> ".join(result.chain(first)))
    if problems:
        raise AssertionError(f"importing {module} loaded forbidden modules:\n"
                             + "\n".join(problems))
    return result
