"""``lion-lint new-rule NAME``: write a local rule module and its test into the project.

The generated rule works as written (it reports calls to configured functions, however they
are imported) and its test passes, so an author starts from green and edits towards the
house rule they want. Nothing is overwritten, and pyproject.toml is left to the author: the
command prints the ``plugins`` line to add.
"""

from __future__ import annotations

import importlib.util
import keyword
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.machinery import all_suffixes
from pathlib import Path
from string import Template

from lintkit.core.rule import Rule

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_CODE = re.compile(r"^[A-Z]+[0-9]+$")
DEFAULT_PACKAGE = "tools.lint"
DEFAULT_PREFIX = "HR"


class ScaffoldError(Exception):
    """Why nothing was written."""


@dataclass
class Scaffold:
    """What ``new-rule`` wrote and what the author does next."""

    code: str
    name: str
    class_name: str
    module: str  # dotted
    rule_path: Path
    test_path: Path
    created: list[Path] = field(default_factory=list)

    @property
    def spec(self) -> str:
        return f"{self.module}:{self.class_name}"


def rule_name(raw: str) -> str:
    """The kebab-case rule name for NAME (``No_Print`` and ``no print`` give ``no-print``)."""
    name = re.sub(r"[\s_]+", "-", raw.strip()).lower()
    if not _NAME.match(name):
        raise ScaffoldError(f"'{raw}' is not a rule name: use lowercase words joined by "
                            "hyphens, such as 'uuid-identity-is-string'")
    return name


_CODE_LINE = re.compile(r"""^[ \t]+code[ \t]*(?::[^=\n]*)?=[ \t]*["']([A-Z]+[0-9]+)["']""",
                        re.MULTILINE)


def codes_taken(rules: Sequence[type[Rule]], root: Path,
                package: str = DEFAULT_PACKAGE) -> dict[str, str]:
    """Each code already in use, with who uses it: the project's rules (lion-lint's and
    the configured plugins') and the rule modules in ``package`` that no plugins list
    names yet (a rule scaffolded a moment ago is one)."""
    taken = {rule.code: f"rule {rule.code} ({rule.name})" for rule in rules}
    directory = root.joinpath(*package.split("."))
    for module in sorted(directory.glob("*.py")) if directory.is_dir() else ():
        try:
            text = module.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for code in _CODE_LINE.findall(text):
            taken.setdefault(code, f"{module.relative_to(root).as_posix()}")
    return taken


def next_code(taken: Iterable[str], prefix: str = DEFAULT_PREFIX) -> str:
    """The first ``HR001``-style code not in ``taken``."""
    used = set(taken)
    number = 1
    while f"{prefix}{number:03d}" in used:
        number += 1
    return f"{prefix}{number:03d}"


def scaffold_rule(root: Path, raw_name: str, code: str, package: str = DEFAULT_PACKAGE,
                  taken: Mapping[str, str] | None = None, held: Mapping[str, str] | None = None,
                  import_roots: Sequence[Path] = ()) -> Scaffold:
    """Write ``<package>/<module>.py`` and ``<package>/test_<module>.py`` under ``root``
    (plus any missing ``__init__.py`` of the package). Raises ScaffoldError, writing
    nothing, if the code is lion-lint's or in ``taken`` (code -> its user), the name is a
    ``[tool.lion-lint]`` key in ``held`` (key -> its holder, as ``held_keys`` words it), a
    file would shadow or be shadowed by a module the project has (``import_roots`` are its
    other roots of top-level packages, such as ``src``), or an argument is malformed."""
    name = rule_name(raw_name)
    _check_code(code, taken or {})
    parts = package.split(".")
    if not all(part.isidentifier() and not keyword.iskeyword(part) for part in parts):
        raise ScaffoldError(f"'{package}' is not a dotted package name")
    module = name.replace("-", "_")
    if keyword.iskeyword(module) or not module.isidentifier():
        raise ScaffoldError(f"rule name '{name}' would make the module name '{module}', "
                            "which Python cannot import; choose another name")
    class_name = "".join(word.capitalize() for word in name.split("-"))
    directory = root.joinpath(*parts)
    result = Scaffold(code=code, name=name, class_name=class_name,
                      module=f"{package}.{module}", rule_path=directory / f"{module}.py",
                      test_path=directory / f"test_{module}.py")
    _check_no_shadowing(root, parts, (module, f"test_{module}"), import_roots)
    if held and name in held:
        # Its options table, [tool.lion-lint.<name>], would be that key's value.
        raise ScaffoldError(f"rule name '{name}' is {held[name]}; choose another name; "
                            "nothing written")
    values = {"code": code, "name": name, "cls": class_name, "module": module,
              "package": package}
    files = {result.rule_path: Template(RULE_TEMPLATE).substitute(values),
             result.test_path: Template(TEST_TEMPLATE).substitute(values)}
    # Regular packages all the way down, so pytest puts the project root on sys.path for
    # the test and `import tools.lint...` works however pytest is started.
    for depth in range(1, len(parts) + 1):
        init = root.joinpath(*parts[:depth], "__init__.py")
        if not init.exists():
            files[init] = ""
    for path, text in sorted(files.items()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        result.created.append(path)
    return result


def _check_code(code: str, taken: Mapping[str, str]) -> None:
    if not _CODE.match(code):
        raise ScaffoldError(f"'{code}' is not a rule code: capitals then digits, such as "
                            "'HR001'")
    if code.startswith("LL"):
        raise ScaffoldError(f"'{code}': the LL prefix is lion-lint's own; use one of your "
                            "own, such as 'HR001'")
    if code in taken:
        raise ScaffoldError(f"code {code} is already used by {taken[code]}; nothing written")


def _check_no_shadowing(root: Path, parts: Sequence[str], modules: Iterable[str],
                        import_roots: Sequence[Path]) -> None:
    """Refuse to write what would change what one of the project's imports finds: a
    top-level package that another import root has too, a package beside a module of its
    name, or a module where one of that name (of any kind) already is."""
    package = ".".join(parts)
    if parts[0] in sys.stdlib_module_names:
        # lion-lint itself imports much of the standard library before any plugin, so the
        # plugin's package would be looked up inside the standard library's module.
        raise ScaffoldError(
            f"package '{package}': '{parts[0]}' is a module of Python's standard library, "
            "which it would shadow or be shadowed by; pass another --package; nothing written")
    if not any(_module_at(r, parts[0]) for r in (root, *import_roots)):
        installed = _installed_at(parts[0], root)
        if installed is not None:
            # The project has no such module: the new package would shadow the installed
            # one for the project's code and tests, or (once lion-lint or a plugin has
            # imported it) be looked for inside it.
            raise ScaffoldError(
                f"package '{package}': '{parts[0]}' is an installed package ({installed}), "
                "which it would shadow or be shadowed by; pass another --package; nothing "
                "written")
    for other in (r for r in import_roots if r.resolve() != root.resolve()):
        found = _module_at(other, parts[0])
        if found is not None:
            # Plugins are imported with the project root first on sys.path, the project's
            # code from its import roots: the two would find different packages.
            raise ScaffoldError(
                f"package '{package}': '{parts[0]}' is already {_shown(found, root)}, in the "
                f"import root {_shown(other, root)}; a '{parts[0]}' at the project root would "
                "shadow it or be shadowed by it; pass another --package; nothing written")
    for depth in range(1, len(parts) + 1):
        new = root.joinpath(*parts[:depth])
        found = None if (new / "__init__.py").exists() else _module_beside(new)
        if found is not None:
            raise ScaffoldError(
                f"package '{package}': the package {_shown(new, root)}/ that new-rule would "
                f"make would shadow the module {_shown(found, root)}; pass another --package; "
                "nothing written")
    directory = root.joinpath(*parts)
    for module in modules:
        found = _module_at(directory, module)
        if found is not None:
            also = "" if found.name == f"{module}.py" else f" (module {package}.{module})"
            raise ScaffoldError(f"{_shown(found, root)} already exists{also}; nothing written")


def _module_at(directory: Path, name: str) -> Path | None:
    """What ``import name`` finds in ``directory``, if anything: a package (a regular or a
    namespace one) or a module of any kind Python loads (source, bytecode, extension)."""
    candidates = [directory / f"{name}.py", directory / name,
                  *(directory / f"{name}{suffix}" for suffix in all_suffixes())]
    return next((path for path in candidates if path.exists()), None)


def _module_beside(package: Path) -> Path | None:
    """A module file of the same name beside ``package``: once the package has its
    ``__init__.py``, Python imports the package and no longer that module."""
    candidates = (package.with_name(f"{package.name}{suffix}") for suffix in all_suffixes())
    return next((path for path in candidates if path.exists()), None)


def _installed_at(name: str, root: Path) -> str | None:
    """Where an import of the top-level ``name`` finds a module outside the project, if it
    finds one (the project's own files are the other checks' business). Only the finders
    are asked: nothing is imported or run."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    places = [spec.origin] if spec.origin and spec.has_location else []
    places += [p for p in spec.submodule_search_locations or () if Path(p).exists()]
    if not places:  # found, but nowhere on disk (an editable install's import hook, say)
        return spec.origin or "found by an import hook"
    inside = root.resolve()
    return next((p for p in places if not Path(p).resolve().is_relative_to(inside)), None)


def _shown(path: Path, root: Path) -> str:
    """``path`` relative to the project root, where it lies inside it."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


RULE_TEMPLATE = '''\
"""$code $name: TODO say in one line which house rule this enforces."""

from __future__ import annotations

from collections.abc import Iterable

from lintkit import Diagnostic, Expect, Invalid, Project, Rule, RuleOptions, Valid


class Options(RuleOptions):
    """Read from [tool.lion-lint.$name] of pyproject.toml (keys in kebab-case there)."""

    forbidden: tuple[str, ...] = ("os.system",)


class $cls(Rule):
    """TODO: the house rule in one sentence.

    ## What it does
    Reports a call to a function listed in `forbidden`, however the module reaches it:
    directly, through an alias, a relative import or another module's re-export.

    ## Why it matters
    TODO: the decision this rule enforces, and a link to its ADR.

    ## Example
    ```python
    import os

    os.system("make")
    ```

    ## How to fix
    TODO: what to write instead.
    """

    code = "$code"
    name = "$name"
    summary = "TODO: one line for `lion-lint rules`"
    Options = Options

    valid = (
        Valid("import subprocess\\n\\nsubprocess.run(['make'], check=True)\\n",
              name="another function"),
    )
    invalid = (
        Invalid("import os\\n\\nos.system('make')\\n",
                expect=Expect(3, "$code", message="os.system"), name="direct call"),
        Invalid({
            "pkg/__init__.py": "",
            "pkg/shell.py": "from os import system as run\\n",
            "pkg/build.py": "from .shell import run\\n\\nrun('make')\\n",
        }, expect=Expect(3, "$code", message="os.system", path="pkg/build.py"),
            name="through a re-export"),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        index = project.index
        forbidden = set(self.options.forbidden)
        for info in index.by_path.values():
            for call in info.facts.calls:
                if call.func is None:  # a callee that is not a dotted name
                    continue
                target = index.resolve(info.name, call.func, call.scope)
                if target in forbidden:
                    yield self.diagnostic(info.path, call.span, f"call to {target}",
                                          scope=call.scope)
'''

TEST_TEMPLATE = '''\
"""Tests of $code $name: its declared examples, and what they cannot express."""

from __future__ import annotations

from lintkit.testing import lint_sources, rule_tests

from $package.$module import $cls

test_$module = rule_tests($cls)


def test_the_forbidden_option_chooses_the_functions() -> None:
    found = lint_sources("import pickle\\n\\npickle.loads(b'')\\n", [$cls],
                         options={"forbidden": ["pickle.loads"]})
    assert [(d.code, d.location.line) for d in found] == [("$code", 3)]
'''
