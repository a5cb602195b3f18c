"""LL003 import-time-registration: each way importing can register, and what must not count.

Every test lints a real temporary project with the real engine (LibCST, the index).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lintkit.cli.main import cli
from lintkit.testing import lint_sources
from lion_lint.rules.import_time_registration import ImportTimeRegistration

REGISTRY = """\
from collections import defaultdict

_ROUTES = []
HANDLERS = {}
NAMES = set()
BY_KIND = defaultdict(list)
COUNTS = {name: 0 for name in ("a", "b")}


def route(path):
    def decorator(fn):
        _ROUTES.append((path, fn))
        return fn
    return decorator


def register(fn):
    HANDLERS[fn.__name__] = fn
    return fn


def tag(fn):
    fn.__tagged__ = True
    return fn
"""


def lint(files: dict[str, str], **options: Any) -> list[tuple[str, int, int, str]]:
    found = lint_sources(files, [ImportTimeRegistration], options=options)
    assert all(d.code == "LL003" for d in found)
    return [(d.path, d.location.line, d.location.column, d.message) for d in found]


def with_registry(module: str, **more: str) -> dict[str, str]:
    return {"pkg/__init__.py": "", "pkg/registry.py": REGISTRY, "pkg/ops.py": module, **more}


# --- decorators ---------------------------------------------------------------------------

def test_decorator_factory_of_another_module_names_registry_and_chain() -> None:
    found = lint(with_registry("from pkg.registry import route\n\n\n@route('/ops')\ndef ops():\n    pass\n"))
    assert found == [("pkg/ops.py", 4, 1,
                      "@route registers at import time: appends to _ROUTES (pkg/registry.py:3) "
                      "via route.decorator (pkg/registry.py:11)")]


def test_plain_decorator_and_every_import_spelling() -> None:
    files = with_registry(
        "import pkg.registry\n"
        "import pkg.registry as reg\n"
        "from pkg.registry import register as remember\n"
        "from . import registry\n\n\n"
        "@pkg.registry.register\ndef a(): ...\n\n\n"
        "@reg.register\ndef b(): ...\n\n\n"
        "@remember\ndef c(): ...\n\n\n"
        "@registry.register\ndef d(): ...\n")
    found = lint(files)
    assert [(line, column) for _, line, column, _ in found] == [(7, 1), (11, 1), (15, 1), (19, 1)]
    assert {message for *_, message in found} == {
        f"@{name} registers at import time: sets an item of HANDLERS (pkg/registry.py:4) via "
        "register (pkg/registry.py:17)"
        for name in ("pkg.registry.register", "reg.register", "remember", "registry.register")
    } and len({m for *_, m in found}) == 4


def test_re_export_through_a_package_and_a_relative_import() -> None:
    files = {"pkg/__init__.py": "", "pkg/web/__init__.py": "from .registry import route\n",
             "pkg/web/registry.py": REGISTRY,
             "pkg/app/__init__.py": "",
             "pkg/app/views.py": "from ..web import route\n\n\n@route('/x')\ndef x(): ...\n"}
    assert [(p, line) for p, line, _, _ in lint(files)] == [("pkg/app/views.py", 4)]


def test_cross_module_decorator_factory_followed_three_calls_deep() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/core/__init__.py": "",
        "pkg/core/store.py": "_TABLE = {}\n\n\ndef put(key, value):\n    _TABLE[key] = value\n",
        "pkg/web/__init__.py": "",
        "pkg/web/table.py": "from pkg.core import store\n\n\n"
                            "def add_route(path, fn):\n    store.put(path, fn)\n",
        "pkg/web/decorators.py": "from .table import add_route\n\n\n"
                                 "def expose(path):\n"
                                 "    def wrap(fn):\n"
                                 "        add_route(path, fn)\n"
                                 "        return fn\n"
                                 "    return wrap\n",
        "pkg/ops.py": "from pkg.web import decorators as d\n\n\n@d.expose('/x')\ndef x(): ...\n",
    }
    assert lint(files) == [(
        "pkg/ops.py", 4, 1,
        "@d.expose registers at import time: sets an item of _TABLE (pkg/core/store.py:1) via "
        "expose.wrap (pkg/web/decorators.py:5) -> add_route (pkg/web/table.py:4) -> "
        "put (pkg/core/store.py:4)")]
    assert lint(files, **{"max-depth": 2}) == []  # the chain needs three calls


def test_a_tagging_decorator_is_not_a_registration() -> None:
    assert lint(with_registry("from pkg.registry import tag\n\n\n@tag\ndef ops(): ...\n")) == []


def test_a_decorator_object_made_at_module_level() -> None:
    files = with_registry("from pkg.registry import route\n\nops_route = route('/ops')\n\n\n"
                          "@ops_route\ndef ops(): ...\n")
    assert [(line, column) for _, line, column, _ in lint(files)] == [(6, 1)]


def test_decorators_in_class_bodies_and_on_classes() -> None:
    files = with_registry("from pkg.registry import register\n\n\n"
                          "@register\nclass Plugin:\n"
                          "    @register\n    def method(self): ...\n")
    found = lint(files)
    assert [(line, column) for _, line, column, _ in found] == [(4, 1), (6, 5)]


# --- statements at import time ---------------------------------------------------------

def test_every_store_form_at_module_level_including_compound_statements() -> None:
    module = (
        "import contextlib\n"
        "from pkg import registry\n"
        "from pkg.registry import BY_KIND, NAMES\n\n"
        "registry.HANDLERS['a'] = print\n"
        "del registry.HANDLERS['a']\n"
        "registry.COUNTS['a'] += 1\n"
        "registry._ROUTES += [1]\n"
        "if True:\n"
        "    NAMES.add('x')\n"
        "try:\n"
        "    BY_KIND['k'].append(1)\n"
        "except KeyError:\n"
        "    pass\n"
        "with contextlib.suppress(Exception):\n"
        "    registry.HANDLERS.update(b=print)\n"
        "for name in ('c', 'd'):\n"
        "    registry.HANDLERS.setdefault(name, print)\n"
        "registry._ROUTES.extend([2])\n"
        "registry._ROUTES.insert(0, 3)\n"
        "registry.HANDLERS.__setitem__('e', print)\n"
        "registry.HANDLERS.pop('e')\n"
    )
    found = lint(with_registry(module))
    verbs = [(line, message.split(": ", 1)[1].split(" (")[0]) for _, line, _, message in found]
    assert verbs == [
        (5, "sets an item of HANDLERS"), (6, "removes from HANDLERS"),
        (7, "updates an item of COUNTS"), (8, "extends _ROUTES"), (10, "adds to NAMES"),
        (12, "appends to BY_KIND"), (16, "updates HANDLERS"), (18, "sets a key of HANDLERS"),
        (19, "extends _ROUTES"), (20, "inserts into _ROUTES"), (21, "sets an item of HANDLERS"),
        (22, "removes from HANDLERS"),
    ]


def test_an_augmented_assignment_is_worded_by_its_operator() -> None:
    # += concatenates, |= merges, -= and &= only take away; any other operator updates.
    module = (
        "from pkg import registry\n"
        "from pkg.registry import NAMES, _ROUTES\n\n"
        "_ROUTES += [1]\n"
        "NAMES |= {'a'}\n"
        "NAMES -= {'b'}\n"
        "NAMES &= {'c'}\n"
        "NAMES ^= {'d'}\n"
        "registry.NAMES |= {'e'}\n"
        "registry._ROUTES += [2]\n"
        "registry.COUNTS['a'] |= 1\n"
    )
    found = lint(with_registry(module))
    assert [(line, message.split(" (")[0]) for _, line, _, message in found] == [
        (4, "_ROUTES += registers at import time: extends _ROUTES"),
        (5, "NAMES |= registers at import time: updates NAMES"),
        (6, "NAMES -= registers at import time: removes from NAMES"),
        (7, "NAMES &= registers at import time: removes from NAMES"),
        (8, "NAMES ^= registers at import time: updates NAMES"),
        (9, "registry.NAMES registers at import time: updates NAMES"),
        (10, "registry._ROUTES registers at import time: extends _ROUTES"),
        (11, "registry.COUNTS[...] registers at import time: updates an item of COUNTS"),
    ]


def test_class_bodies_defaults_and_bases_run_at_import() -> None:
    module = (
        "from pkg.registry import NAMES, register\n\n\n"
        "def base(name):\n"
        "    NAMES.add(name)\n"
        "    return object\n\n\n"
        "class Model(base('model')):\n"
        "    NAMES.add('body')\n\n\n"
        "def handler(callback=register(print)):\n"
        "    pass\n"
    )
    found = lint(with_registry(module))
    assert [(line, message.split(" registers")[0]) for _, line, _, message in found] == [
        (9, "base()"), (10, "NAMES.add()"), (13, "register()")]


def test_project_function_called_at_import_time_is_followed() -> None:
    module = ("from pkg.registry import HANDLERS\n\n\n"
              "def _setup():\n    table = HANDLERS\n    table['x'] = print\n\n\n"
              "_setup()\n")
    assert lint(with_registry(module)) == [(
        "pkg/ops.py", 9, 1, "_setup() registers at import time: sets an item of HANDLERS "
        "(pkg/registry.py:4) via _setup (pkg/ops.py:4)")]


def test_a_called_function_runs_its_class_bodies_decorators_and_global_stores() -> None:
    # What a call runs is its function's own body, class bodies in it included, and not
    # the bodies of the functions it defines.
    module = (
        "from pkg.registry import HANDLERS, NAMES, register\n\n\n"
        "def _setup():\n"
        "    global NAMES\n"
        "    NAMES |= {'setup'}\n\n"
        "    class Local:\n"
        "        HANDLERS['local'] = print\n\n"
        "    @register\n"
        "    def hook():\n"
        "        pass\n\n"
        "    def later():\n"
        "        HANDLERS['later'] = print\n"
        "    return later\n\n\n"
        "_setup()\n"
    )
    files = with_registry(module)
    [diagnostic] = lint_sources(files, [ImportTimeRegistration])
    assert diagnostic.location.line == 20
    effects = [diagnostic.message.split(": ", 1)[1], *diagnostic.detail]
    # The class body's store, the global extended in place (a name imported from the
    # registry module), and the decorator's call of register; not later's store.
    assert effects == [
        "sets an item of HANDLERS (pkg/registry.py:4) via _setup (pkg/ops.py:4)",
        "also updates NAMES (pkg/registry.py:5) via _setup (pkg/ops.py:4)",
        "also sets an item of HANDLERS (pkg/registry.py:4) via _setup (pkg/ops.py:4) "
        "-> register (pkg/registry.py:17)",
    ]


def test_code_that_does_not_run_on_import_is_not_reported() -> None:
    module = (
        "from typing import TYPE_CHECKING\n"
        "from pkg.registry import HANDLERS, register\n\n\n"
        "def later():\n"
        "    HANDLERS['later'] = print\n\n\n"
        "def outer():\n"
        "    def inner():\n"
        "        HANDLERS['inner'] = print\n"
        "    return inner\n\n\n"
        "on_demand = lambda: HANDLERS.update(x=print)\n"
        "outer()\n"
        "if TYPE_CHECKING:\n"
        "    register(print)\n"
        "if __name__ == '__main__':\n"
        "    register(print)\n"
        "    HANDLERS['main'] = print\n"
    )
    assert lint(with_registry(module)) == []


def test_lambdas_anywhere_defer_their_code() -> None:
    # Lambdas deeper than an expression summary reaches, in a default argument, in a
    # decorator's arguments, in a class body and in a plain statement: none runs on import.
    module = (
        "from pkg.registry import HANDLERS, register\n\n\n"
        "TABLE = {'a': [[[[[[[[[[lambda: HANDLERS.update(deep=print)]]]]]]]]]]}\n"
        "def f(hook=lambda: HANDLERS.update(default=print)):\n    return hook\n\n\n"
        "@(lambda fn: fn)(lambda: HANDLERS.update(decorator=print))\n"
        "def g():\n    pass\n\n\n"
        "class C:\n    hook = staticmethod(lambda: register(print))\n\n\n"
        "(lambda: HANDLERS.update(statement=print))\n"
    )
    assert lint(with_registry(module)) == []
    # The same calls outside a lambda are reported: the check above can fail.
    called = module.replace("lambda: HANDLERS", "HANDLERS.copy() or HANDLERS")
    assert len(lint(with_registry(called))) >= 4


def test_a_module_filling_its_own_containers_is_construction() -> None:
    module = ("_TABLE = {}\n_TABLE['a'] = 1\n\n\n"
              "def register(fn):\n    _TABLE[fn.__name__] = fn\n    return fn\n\n\n"
              "@register\ndef a(): ...\n")
    assert lint(with_registry(module)) == []


# --- class-level registries, objects and methods --------------------------------------------

CLASS_REGISTRY = """\
from typing import ClassVar


class Adaptable:
    _adapters: ClassVar[dict] = {}

    @classmethod
    def register_adapter(cls, adapter):
        cls._adapters[adapter.key] = adapter
        return adapter


class Registry:
    _plugins: ClassVar[list] = []

    def __init__(self):
        self._items = {}

    @classmethod
    def register(cls, plugin):
        cls._plugins.append(plugin)
        return plugin

    def add(self, name, item):
        self._items[name] = item


registry = Registry()
"""


def test_classvar_registries_through_classmethods_and_subclasses() -> None:
    files = {"pkg/__init__.py": "", "pkg/base.py": CLASS_REGISTRY, "pkg/ops.py": (
        "from pkg.base import Adaptable, Registry\n\n\n"
        "class Json(Adaptable):\n    key = 'json'\n\n\n"
        "Json.register_adapter(Json)\n\n\n"
        "@Registry.register\nclass Plugin: ...\n")}
    assert [(line, message) for _, line, _, message in lint(files)] == [
        (8, "Json.register_adapter() registers at import time: sets an item of "
            "Adaptable._adapters (pkg/base.py:5) via Adaptable.register_adapter (pkg/base.py:8)"),
        (11, "@Registry.register registers at import time: appends to Registry._plugins "
             "(pkg/base.py:14) via Registry.register (pkg/base.py:20)"),
    ]


def test_a_module_level_object_mutated_through_its_method() -> None:
    files = {"pkg/__init__.py": "", "pkg/base.py": CLASS_REGISTRY, "pkg/ops.py": (
        "from pkg.base import registry\n\nregistry.add('ops', print)\n")}
    assert lint(files) == [("pkg/ops.py", 3, 1,
                            "registry.add() registers at import time: sets an item of "
                            "registry._items (pkg/base.py:28) via Registry.add (pkg/base.py:24)")]


def test_a_registry_built_and_returned_by_a_function_is_explicit_composition() -> None:
    files = {"pkg/__init__.py": "", "pkg/base.py": CLASS_REGISTRY, "pkg/compose.py": (
        "from pkg.base import Registry\n\n\n"
        "def build_default_registry():\n"
        "    registry = Registry()\n"
        "    registry.add('a', print)\n"
        "    return registry\n\n\n"
        "DEFAULT_REGISTRY = build_default_registry()\n"
        "LOCAL = Registry()\nLOCAL.add('b', print)\n")}
    assert lint(files) == []


def test_an_enum_member_method_that_registers() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/endpoints.py": (
            "from typing import ClassVar\n\n\n"
            "class EndpointRegistry:\n"
            "    _entries: ClassVar[list] = []\n\n"
            "    @classmethod\n"
            "    def register(cls, name):\n"
            "        def decorator(endpoint):\n"
            "            cls._entries.append((name, endpoint))\n"
            "            return endpoint\n"
            "        return decorator\n\n\n"
            "class ProviderConfig:\n"
            "    def register(self, cls=None):\n"
            "        decorator = EndpointRegistry.register(self.value)\n"
            "        return decorator(cls)\n"),
        "pkg/openai.py": (
            "from enum import Enum\n\nfrom pkg.endpoints import ProviderConfig\n\n\n"
            "class OpenAIConfigs(ProviderConfig, Enum):\n    CHAT = 'chat'\n\n\n"
            "@OpenAIConfigs.CHAT.register\nclass Chat: ...\n"),
    }
    assert lint(files) == [(
        "pkg/openai.py", 10, 1,
        "@OpenAIConfigs.CHAT.register registers at import time: appends to "
        "EndpointRegistry._entries (pkg/endpoints.py:5) via ProviderConfig.register "
        "(pkg/endpoints.py:16) -> EndpointRegistry.register.decorator (pkg/endpoints.py:9)")]


def test_instance_state_shadowing_a_class_attribute_is_not_shared() -> None:
    files = {"pkg/__init__.py": "", "pkg/base.py": (
        "class Bag:\n    items = []\n\n"
        "    def __init__(self):\n        self.items = []\n\n"
        "    def add(self, item):\n        self.items.append(item)\n"),
        "pkg/ops.py": "from pkg.base import Bag\n\nBag().add(1)\n"}
    assert lint(files) == []


# --- class-creation hooks ------------------------------------------------------------------

def test_init_subclass_hook_reported_once_with_the_number_of_subclasses() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/reg.py": "PLUGINS = {}\n",
        "pkg/base.py": ("from pkg.reg import PLUGINS\n\n\n"
                        "class Plugin:\n"
                        "    def __init_subclass__(cls, **kwargs):\n"
                        "        super().__init_subclass__(**kwargs)\n"
                        "        PLUGINS[cls.__name__] = cls\n"),
        "pkg/a.py": "from pkg.base import Plugin\n\n\nclass A(Plugin): ...\n\n\nclass AA(A): ...\n",
        "pkg/b.py": "from pkg import base\n\n\nclass B(base.Plugin): ...\n",
    }
    assert lint(files) == [(
        "pkg/base.py", 5, 9,
        "Plugin.__init_subclass__ registers every subclass at class creation: sets an item of "
        "PLUGINS (pkg/reg.py:1); 3 project classes trigger it")]


def test_pydantic_hook_and_a_hook_with_no_subclass_yet() -> None:
    files = {"pkg/__init__.py": "", "pkg/reg.py": "REGISTRY = {}\n", "pkg/node.py": (
        "from pkg.reg import REGISTRY\n\n\n"
        "class Node:\n"
        "    @classmethod\n"
        "    def __pydantic_init_subclass__(cls, **kwargs):\n"
        "        REGISTRY[cls.__name__] = cls\n")}
    assert [message.rsplit("; ", 1)[1] for *_, message in lint(files)] == [
        "no project class triggers it yet"]


def test_hooks_that_write_only_to_cls_are_not_registrations() -> None:
    files = {"pkg/__init__.py": "", "pkg/base.py": (
        "import threading\n\n\n"
        "class Broadcaster:\n"
        "    _subscribers = []\n\n"
        "    def __init_subclass__(cls, **kwargs):\n"
        "        super().__init_subclass__(**kwargs)\n"
        "        cls._subscribers = []\n"
        "        cls._lock = threading.Lock()\n"
        "        cls.registry = {}\n"
        "        cls.registry['self'] = cls\n"),
        "pkg/events.py": "from pkg.base import Broadcaster\n\n\nclass Events(Broadcaster): ...\n"}
    assert lint(files) == []


def test_metaclass_new_and_init_but_not_call() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/reg.py": "MODELS = []\nINSTANCES = []\n",
        "pkg/meta.py": ("from pkg.reg import INSTANCES, MODELS\n\n\n"
                        "class ModelMeta(type):\n"
                        "    def __new__(mcs, name, bases, namespace):\n"
                        "        cls = super().__new__(mcs, name, bases, namespace)\n"
                        "        MODELS.append(cls)\n"
                        "        return cls\n\n"
                        "    def __call__(cls, *args):\n"
                        "        INSTANCES.append(cls)\n"
                        "        return super().__call__(*args)\n\n\n"
                        "class Model(metaclass=ModelMeta): ...\n"),
        "pkg/models.py": "from pkg.meta import Model\n\n\nclass User(Model): ...\n",
    }
    assert lint(files) == [(
        "pkg/meta.py", 5, 9,
        "ModelMeta.__new__ registers every class it creates at class creation: appends to "
        "MODELS (pkg/reg.py:1); 2 project classes trigger it")]


def test_set_name_hook_counts_the_class_attributes_using_the_descriptor() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/reg.py": "FIELDS = []\n",
        "pkg/fields.py": ("from pkg.reg import FIELDS\n\n\n"
                          "class Field:\n"
                          "    def __set_name__(self, owner, name):\n"
                          "        FIELDS.append((owner, name))\n"),
        "pkg/models.py": ("from pkg.fields import Field\n\n\n"
                          "class User:\n    name = Field()\n    email = Field()\n"),
    }
    found = lint(files)
    assert [(p, line) for p, line, _, _ in found] == [("pkg/fields.py", 5)]
    assert found[0][3].endswith("; 2 class attributes trigger it")


def test_a_hook_only_its_own_module_triggers_is_construction() -> None:
    files = {"pkg/__init__.py": "", "pkg/base.py": (
        "KINDS = {}\n\n\n"
        "class Kind:\n"
        "    def __init_subclass__(cls):\n"
        "        KINDS[cls.__name__] = cls\n\n\n"
        "class A(Kind): ...\n")}
    assert lint(files) == []


# --- third-party registration callables -------------------------------------------------------

def test_third_party_registration_callables_and_decorator_patterns() -> None:
    files = {"pkg/__init__.py": "", "pkg/server.py": (
        "import atexit\n"
        "from atexit import register as at_exit\n\n"
        "from fastmcp import FastMCP\n"
        "from flask import Flask\n\n"
        "mcp = FastMCP('x')\n"
        "app = Flask(__name__)\n\n\n"
        "def close(): ...\n\n\n"
        "atexit.register(close)\n\n\n"
        "@at_exit\ndef bye(): ...\n\n\n"
        "@mcp.tool\ndef tool(): ...\n\n\n"
        "@app.route('/')\ndef index(): ...\n")}
    found = lint(files)
    assert [(line, message) for _, line, _, message in found] == [
        (14, "atexit.register() registers at import time: calls atexit.register "
             "(a registration-callables entry)"),
        (17, "@at_exit registers at import time: calls atexit.register "
             "(a registration-callables entry)"),
        (21, "@mcp.tool registers at import time: mcp.tool matches the "
             "registration-decorators pattern '*.tool'"),
        (25, "@app.route registers at import time: app.route matches the "
             "registration-decorators pattern '*.route'"),
    ]
    quiet = lint(files, **{"registration-callables": [], "registration-decorators": []})
    assert quiet == []


def test_a_project_function_calling_a_registration_callable() -> None:
    files = {"pkg/__init__.py": "", "pkg/log.py": (
        "import atexit\n\n\n"
        "class Logger:\n"
        "    def __init__(self):\n"
        "        atexit.register(self.flush)\n\n"
        "    def flush(self): ...\n"),
        "pkg/ops.py": "from pkg.log import Logger\n\nlogger = Logger()\n"}
    assert lint(files) == [("pkg/ops.py", 3, 10,
                            "Logger() registers at import time: calls atexit.register "
                            "(a registration-callables entry) via Logger.__init__ (pkg/log.py:5)")]


def test_singledispatch_register_is_an_overload_not_a_registry() -> None:
    files = {"pkg/__init__.py": "", "pkg/convert.py": (
        "import functools\n"
        "from functools import singledispatch\n\n\n"
        "@singledispatch\ndef convert(value): ...\n\n\n"
        "to_text = functools.singledispatch(str)\n\n\n"
        "class Codec:\n"
        "    @functools.singledispatchmethod\n"
        "    def encode(self, value): ...\n\n"
        "    @encode.register\n"
        "    def _(self, value: int): ...\n"),
        "pkg/ops.py": ("from pkg.convert import convert, to_text\n\n\n"
                       "@convert.register\ndef _(value: int): ...\n\n\n"
                       "@convert.register(str)\ndef _(value): ...\n\n\n"
                       "@to_text.register\ndef _(value: float): ...\n")}
    assert lint(files) == []


# --- caches, composition roots ----------------------------------------------------------------

def test_lazily_filled_caches_are_not_registrations() -> None:
    files = {"pkg/__init__.py": "", "pkg/layout.py": (
        "_LAYOUTS = {}\n_SPECS = {}\n_field_cache = {}\n\n\n"
        "def layout(kind):\n"
        "    cached = _LAYOUTS.get(kind)\n"
        "    if cached is not None:\n"
        "        return cached\n"
        "    computed = (kind,)\n"
        "    _LAYOUTS[kind] = computed\n"
        "    return computed\n\n\n"
        "def spec(kind):\n"
        "    if kind not in _SPECS:\n"
        "        _SPECS[kind] = (kind,)\n"
        "    return _SPECS[kind]\n\n\n"
        "def fields(kind):\n"
        "    _field_cache[kind] = (kind,)\n"),
        "pkg/ops.py": ("from pkg.layout import fields, layout, spec\n\n"
                       "A = layout('a')\nB = spec('b')\nfields('c')\n")}
    assert lint(files) == []


def test_a_registry_that_checks_for_duplicates_is_still_a_registry() -> None:
    files = {"pkg/__init__.py": "", "pkg/reg.py": (
        "_HANDLERS = {}\n\n\n"
        "def register(fn):\n"
        "    if _HANDLERS.get(fn.__name__) is not None:\n"
        "        raise ValueError(fn.__name__)\n"
        "    _HANDLERS[fn.__name__] = fn\n"
        "    return fn\n"),
        "pkg/ops.py": "from pkg.reg import register\n\n\n@register\ndef ops(): ...\n"}
    assert [(p, line) for p, line, _, _ in lint(files)] == [("pkg/ops.py", 4)]


@pytest.mark.parametrize("path", ["pkg/__main__.py", "conftest.py", "tests/conftest.py"])
def test_default_composition_roots(path: str) -> None:
    files = with_registry("", **{path: "from pkg.registry import register\n\n\n"
                                       "@register\ndef main(): ...\n"})
    assert lint(files) == []


def test_configured_composition_root_globs() -> None:
    module = "from pkg.registry import register\n\n\n@register\ndef main(): ...\n"
    files = with_registry("", **{"pkg/app/wiring.py": module, "pkg/other.py": module})
    found = lint(files, **{"composition-roots": ["pkg/app/*", "__main__.py"]})
    assert [p for p, *_ in found] == ["pkg/other.py"]


def test_diagnostics_carry_the_qualified_name_they_belong_to() -> None:
    files = with_registry("from pkg.registry import HANDLERS, register\n\n\n"
                          "@register\ndef ops(): ...\n\n\n"
                          "class Holder:\n    HANDLERS['x'] = 1\n\n\n"
                          "HANDLERS['y'] = 2\n")
    found = lint_sources(files, [ImportTimeRegistration])
    assert [d.scope for d in found] == ["pkg.ops.ops", "pkg.ops.Holder", "pkg.ops"]


def test_further_effects_of_one_site_are_listed_in_the_detail() -> None:
    files = {"pkg/__init__.py": "", "pkg/reg.py": (
        "_ROUTES = []\n_KEYS = set()\n\n\n"
        "def route(fn):\n    _ROUTES.append(fn)\n    _KEYS.add(fn.__name__)\n    return fn\n"),
        "pkg/ops.py": "from pkg.reg import route\n\n\n@route\ndef ops(): ...\n"}
    [diagnostic] = lint_sources(files, [ImportTimeRegistration])
    assert "appends to _ROUTES (pkg/reg.py:1)" in diagnostic.message
    assert diagnostic.detail == ("also adds to _KEYS (pkg/reg.py:2) via route (pkg/reg.py:5)",)
    assert [r.message for r in diagnostic.related] == ["_ROUTES is defined here",
                                                       "route runs here"]


# --- the bundled examples ------------------------------------------------------------------

def test_lionish_example_fires_on_the_decorator_registry_only() -> None:
    examples = Path(__file__).resolve().parent.parent / "examples"
    runner = CliRunner()
    lionish = runner.invoke(cli, [str(examples / "lionish"), "--select", "LL003",
                                  "--output-format", "json", "--no-cache"])
    assert lionish.exit_code == 1, lionish.output
    found = [(d["path"].rpartition("examples/")[2], d["line"])
             for d in json.loads(lionish.stdout)["diagnostics"]]
    assert found == [("lionish/src/lionish/studio/ops.py", 4)]  # not lifecycle/policy.py
    clean = runner.invoke(cli, [str(examples / "clean"), "--select", "LL003", "--no-cache"])
    assert clean.exit_code == 0, clean.output



def test_a_registry_reached_through_a_call_link() -> None:
    files = {"pkg/__init__.py": "", "pkg/base.py": CLASS_REGISTRY + (
        "\n\ndef get_registry():\n    return registry\n\n\n"
        "def get_plugins():\n    return Registry._plugins\n"),
        "pkg/ops.py": ("from pkg.base import get_plugins, get_registry\n\n"
                       "get_registry().add('ops', print)\nget_plugins().append(print)\n")}
    assert [(line, message.split(" (")[0]) for _, line, _, message in lint(files)] == [
        (3, "get_registry().add() registers at import time: sets an item of registry._items"),
        (4, "get_plugins().append() registers at import time: appends to Registry._plugins")]


# --- an evaluation cut short is not an answer for later questions ---------------------------

DEEP_REGISTRY = """\
HANDLERS = {}


def first():
    return HANDLERS


def second():
    return first()


def third():
    return second()


def add(key, value):
    third()[key] = value
"""


def test_a_modules_registration_does_not_depend_on_the_modules_checked_before_it() -> None:
    # pkg/a.py is checked first and reaches add() one call deeper than pkg/b.py: with
    # max-depth 2, following what third() returns from there runs past the evaluation's
    # depth limit. That cut-short answer was kept and hid b.py's direct call.
    registry = {"pkg/__init__.py": "", "pkg/registry.py": DEEP_REGISTRY}
    deep = ("from pkg.registry import add\n\n\ndef setup():\n    add('a', 1)\n\n\n"
            "setup()\n")
    direct = "from pkg.registry import add\n\nadd('b', 2)\n"
    alone = lint({**registry, "pkg/b.py": direct}, max_depth=2)
    both = lint({**registry, "pkg/a.py": deep, "pkg/b.py": direct}, max_depth=2)
    assert [(path, line) for path, line, _, _ in alone] == [("pkg/b.py", 3)]
    assert [entry for entry in both if entry[0] == "pkg/b.py"] == alone
