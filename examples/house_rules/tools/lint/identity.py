"""ADR0021 uuid-identity-is-string: a uuid identity is a str in Python (ADR-0021)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from lintkit import (
    BindingFact,
    ClassFact,
    Diagnostic,
    Edit,
    Expect,
    Expr,
    Fix,
    Invalid,
    ModuleInfo,
    Project,
    ProjectIndex,
    Related,
    Rule,
    RuleOptions,
    Valid,
)

UUID_TYPE = "uuid.UUID"
#: Wrappers whose arguments are alternatives of the annotated type.
UNION_FORMS = ("typing.Optional", "typing.Union")
ANNOTATED_FORMS = ("typing.Annotated", "typing_extensions.Annotated")
FACTORY_KEYWORDS = ("default_factory", "factory")  # pydantic / dataclasses, attrs


class Options(RuleOptions):
    #: Bases of the model family; every project class descending from one (and a project
    #: class listed here itself) is checked.
    families: tuple[str, ...] = ("pydantic.BaseModel", "pydantic.main.BaseModel")
    #: The identity fields.
    fields: tuple[str, ...] = ("id",)
    #: Callables that return a native uuid.UUID.
    uuid_factories: tuple[str, ...] = ("uuid.uuid1", "uuid.uuid3", "uuid.uuid4", "uuid.uuid5")


_ELEMENT = '''\
from uuid import uuid4

from pydantic import BaseModel, Field


class Element(BaseModel):
    id: str = Field(default_factory=lambda: str(uuid4()))
'''
_FAMILY = {"families": ["app.element.Element"]}


def _app(modules: dict[str, str]) -> dict[str, str]:
    """An example project: package ``app`` with its Element, plus ``modules`` (by path)."""
    return {"app/__init__.py": "", "app/element.py": _ELEMENT,
            **{f"app/{path}": source for path, source in modules.items()}}


class UuidIdentityIsString(Rule):
    """An identity field of the model family holds a str, never a native uuid.UUID.

    ## What it does
    In every class of the configured model family (the project classes descending, across
    modules, from a configured base), finds the identity fields (by default `id`) and
    reports one whose default factory produces a native `uuid.UUID` (`uuid4`, `uuid.uuid4`,
    a lambda returning one, or a project function that returns one, however imported) or
    whose annotation is `UUID` (also inside `Optional[...]`, `X | None` or `Annotated`).

    ## Why it matters
    ADR-0021: a uuid identity is a UUID string in Python, on every path. A native
    `uuid.UUID` is not JSON-serialisable, so `to_dict()`, event and command payloads and API
    responses that carry it fail at the JSON boundary, and identity behaviour comes to
    depend on which path produced the id.

    ## Example
    ```python
    from uuid import UUID, uuid4

    class Event(Element):
        id: UUID = Field(default_factory=uuid4)   # ADR0021
    ```

    ## How to fix
    Produce a string: `id: str = Field(default_factory=lambda: str(uuid4()))`
    (`lion-lint --fix` does this where the factory and the annotation can be rewritten in
    place, and no validator or serializer of the class handles the field). Where callers
    may still pass a `UUID`, coerce it on the way in with a `BeforeValidator`; code that
    needs a native UUID calls `uuid.UUID(id)`.
    """

    code = "ADR0021"
    name = "uuid-identity-is-string"
    summary = "An identity field of the model family must hold a str, not a native uuid.UUID"
    Options = Options

    valid = (
        Valid(_app({}), options=_FAMILY, name="str factory"),
        Valid(_app({"other.py": (
            "from uuid import UUID, uuid4\n\n"
            "class Plain:\n"
            "    id: UUID = uuid4()\n"
        )}), options=_FAMILY, name="outside the family"),
        Valid(_app({"node.py": (
            "from uuid import UUID\n\n"
            "from app.element import Element\n\n"
            "class Node(Element):\n"
            "    parent: UUID | None = None\n"
        )}), options=_FAMILY, name="not an identity field"),
    )
    invalid = (
        Invalid(_app({"event.py": (
            "import uuid as u\n"
            "from pydantic import Field\n\n"
            "from .element import Element\n\n"
            "class Event(Element):\n"
            "    id: u.UUID = Field(default_factory=u.uuid4, frozen=True)\n"
        )}), expect=Expect(7, "ADR0021", 5, "default_factory=u.uuid4, which makes a native "
                                            "uuid.UUID", path="app/event.py"),
            options=_FAMILY, name="aliased module factory, fixed", fixed={"app/event.py": (
                "import uuid as u\n"
                "from pydantic import Field\n\n"
                "from .element import Element\n\n"
                "class Event(Element):\n"
                "    id: str = Field(default_factory=lambda: str(u.uuid4()), frozen=True)\n"
            )}),
        Invalid(_app({"ids.py": "import uuid\n\ndef new_id():\n    return uuid.uuid4()\n",
                      "message.py": (
                          "from pydantic import Field\n\n"
                          "from app import element, ids\n\n"
                          "class Message(element.Element):\n"
                          "    id: str = Field(default_factory=ids.new_id)\n"
                      )}),
                expect=Expect(6, message="app.ids.new_id returns a native uuid.UUID",
                              path="app/message.py"),
                options=_FAMILY, name="factory in another module"),
        Invalid(_app({"record.py": (
            "from typing import Optional\n"
            "from uuid import UUID\n\n"
            "from app.element import Element\n\n"
            "class Record(Element):\n"
            "    id: Optional[UUID] = None\n\n"
            "class Row(Record):\n"
            "    id: UUID | None = None\n"
        )}), expect=(Expect(7, message="Record.id is annotated as uuid.UUID"),
                    Expect(10, message="Row.id is annotated as uuid.UUID")),
            options=_FAMILY, name="annotations"),
        Invalid("from uuid import UUID, uuid4\n"
                "from pydantic import BaseModel, Field\n\n"
                "class Token(BaseModel):\n"
                "    id: UUID = Field(default_factory=lambda: uuid4())\n",
                expect=Expect(5, message="lambda that returns a native uuid.UUID"),
                name="default family, lambda, fixed",
                fixed="from uuid import UUID, uuid4\n"
                      "from pydantic import BaseModel, Field\n\n"
                      "class Token(BaseModel):\n"
                      "    id: str = Field(default_factory=lambda: str(uuid4()))\n"),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        index = project.index
        # A configured name may be a re-export (app.Element): follow it to the definition.
        roots = frozenset(index.canonical(name) for name in self.options.families)
        members = {symbol: [symbol] for symbol in roots if symbol in index.classes}
        members.update(index.subclasses_of(roots))
        for symbol, chain in sorted(members.items()):
            info, cls = index.classes[symbol]
            for binding in info.facts.bindings:
                if binding.scope == cls.qualname and binding.name in self.options.fields:
                    found = self._check_field(project, info, cls, chain, binding)
                    if found is not None:
                        yield found

    # --- one field -------------------------------------------------------------------------

    def _check_field(self, project: Project, info: ModuleInfo, cls: ClassFact,
                     chain: list[str], binding: BindingFact) -> Diagnostic | None:
        index = project.index
        uuid_refs = list(self._uuid_annotation_refs(index, info, binding))
        factory = self._factory(binding)
        made_by = None
        if factory is not None:
            made_by = self._native_factory(project, info, binding.scope, factory)
        if not uuid_refs and made_by is None:
            return None
        problems, related = [], self._lineage(index, chain)
        if uuid_refs:
            problems.append("is annotated as uuid.UUID")
        if made_by is not None:
            problems.append(made_by[0])
            related += made_by[1]
        message = (f"identity field {cls.qualname}.{binding.name} {' and '.join(problems)}; "
                   "ADR-0021: a uuid identity is a str in Python")
        fix = None
        if not _has_field_hooks(info, cls, binding.name):
            fix = self._fix(project, info, binding, factory, made_by, uuid_refs)
        return self.diagnostic(info.path, binding.span, message, related=related, fix=fix,
                               scope=f"{info.name}.{cls.qualname}.{binding.name}")

    def _lineage(self, index: ProjectIndex, chain: list[str]) -> list[Related]:
        return [Related.at(index.classes[s][0].path, index.classes[s][1].span,
                           f"{index.classes[s][1].qualname} is a base here")
                for s in chain[1:] if s in index.classes]

    def _factory(self, binding: BindingFact) -> Expr | None:
        value = binding.value
        if value is None or value.kind != "call":
            return None
        for keyword in FACTORY_KEYWORDS:
            found = value.keyword(keyword)
            if found is not None:
                return found
        return None

    # --- what makes a native UUID ----------------------------------------------------------

    def _native_factory(self, project: Project, info: ModuleInfo, scope: str,
                        factory: Expr) -> tuple[str, list[Related]] | None:
        """(why, related) when calling ``factory`` produces a native uuid.UUID."""
        index = project.index
        text = project.source_text(info.path, factory.span)
        if factory.kind == "lambda" and factory.func is not None:
            if self._returns_uuid(index, info.name, scope, factory.func, set()):
                return "has a default_factory lambda that returns a native uuid.UUID", []
            return None
        symbol = index.resolve_expr(info.name, factory, scope)
        if symbol in self.options.uuid_factories:
            return f"has default_factory={text}, which makes a native uuid.UUID", []
        if symbol in index.functions and self._function_returns_uuid(index, symbol, set()):
            where, function = index.functions[symbol]
            returned = next((r for r in function.returns
                             if self._returns_uuid(index, where.name, function.qualname, r,
                                                   set())), None)
            span = returned.span if returned is not None else function.span
            return (f"has default_factory={text}, and {symbol} returns a native uuid.UUID",
                    [Related.at(where.path, span, f"{function.qualname} returns a uuid.UUID "
                                                  "here")])
        return None

    def _returns_uuid(self, index: ProjectIndex, module: str, scope: str, expr: Expr,
                      seen: set[str]) -> bool:
        """Whether evaluating ``expr`` yields a native uuid.UUID (a call to a uuid factory,
        to uuid.UUID, or to a project function that returns one)."""
        if expr.kind != "call" or expr.func is None:
            return False
        symbol = index.resolve_expr(module, expr.func, scope)
        if symbol in self.options.uuid_factories or symbol == UUID_TYPE:
            return True
        return symbol in index.functions and self._function_returns_uuid(index, symbol, seen)

    def _function_returns_uuid(self, index: ProjectIndex, symbol: str, seen: set[str]) -> bool:
        if symbol in seen:
            return False
        seen.add(symbol)
        info, function = index.functions[symbol]
        return any(self._returns_uuid(index, info.name, function.qualname, value, seen)
                   for value in function.returns)

    def _uuid_annotation_refs(self, index: ProjectIndex, info: ModuleInfo,
                              binding: BindingFact) -> Iterator[tuple[Expr, bool]]:
        """The references to uuid.UUID in the annotation, each with whether replacing it by
        ``str`` is safe (not inside ``Annotated``, whose metadata may expect a UUID)."""
        def walk(expr: Expr, replaceable: bool) -> Iterator[tuple[Expr, bool]]:
            if expr.kind == "ref":
                if index.resolve(info.name, expr.text, binding.scope) == UUID_TYPE:
                    yield expr, replaceable
            elif expr.kind == "union":
                for item in expr.items:
                    yield from walk(item, replaceable)
            elif expr.kind == "sub" and expr.func is not None and expr.items:
                form = index.resolve_expr(info.name, expr.func, binding.scope)
                if form in UNION_FORMS:
                    for item in expr.items:
                        yield from walk(item, replaceable)
                elif form in ANNOTATED_FORMS:
                    yield from walk(expr.items[0], False)

        if binding.annotation is not None:
            yield from walk(binding.annotation, True)

    # --- the fix ----------------------------------------------------------------------------

    def _fix(self, project: Project, info: ModuleInfo, binding: BindingFact,
             factory: Expr | None, made_by: tuple[str, list[Related]] | None,
             uuid_refs: list[tuple[Expr, bool]]) -> Fix | None:
        """Rewrite the factory to ``lambda: str(...)`` and a ``UUID`` annotation to ``str``.

        Only when it is safe: the factory is a uuid factory itself or a lambda calling one
        (a project function may have other callers), every UUID in the annotation can
        become ``str``, ``str`` is the builtin in that scope, and no validator or serializer
        of the class handles the field (it may turn the str back into a UUID)."""
        if made_by is None or factory is None or made_by[1]:
            return None  # nothing to rewrite the factory to, or it is a project function
        if not all(replaceable for _, replaceable in uuid_refs):
            return None
        if project.index.resolve(info.name, "str", binding.scope) is not None:
            return None  # `str` is shadowed here
        path = info.path
        if factory.kind == "lambda" and factory.func is not None:
            body = project.source_text(path, factory.func.span)
            edit = Edit(path, *factory.func.span, f"str({body})")
        else:
            callee = project.source_text(path, factory.span)
            edit = Edit(path, *factory.span, f"lambda: str({callee}())")
        edits = [edit, *(Edit(path, *ref.span, "str") for ref, _ in uuid_refs)]
        return Fix("make the identity a str: lambda: str(uuid4())", tuple(edits))


def _has_field_hooks(info: ModuleInfo, cls: ClassFact, field_name: str) -> bool:
    """Whether a method of the class is decorated for the field (``@field_validator("id")``,
    ``@field_serializer("id")``, ``@validator("id")``): its code may expect a UUID."""
    for function in info.facts.functions:
        if function.scope != cls.qualname:
            continue
        for decorator in function.decorators:
            if decorator.kind == "call" and any(
                    arg.kind == "const" and arg.value == field_name for arg in decorator.items):
                return True
    return False
