"""ADR0001 element-init-forwards-kwargs: a custom __init__ keeps the Element envelope (ADR-0001)."""

from __future__ import annotations

from collections.abc import Iterable

from lintkit import (
    CallFact,
    ClassFact,
    Diagnostic,
    Expect,
    Expr,
    FunctionFact,
    Invalid,
    ModuleInfo,
    Project,
    ProjectIndex,
    Related,
    Rule,
    RuleOptions,
    Valid,
)

class Options(RuleOptions):
    #: The envelope classes; their project subclasses (at any depth, in any module) are checked.
    bases: tuple[str, ...] = ("lionagi.protocols.generic.element.Element",)


_ELEMENT = '''\
from uuid import uuid4

from pydantic import BaseModel, Field


class Element(BaseModel):
    id: str = Field(default_factory=lambda: str(uuid4()))
    created_at: float = 0.0
    metadata: dict = Field(default_factory=dict)
'''
_BASES = {"bases": ["app.element.Element"]}


def _app(modules: dict[str, str]) -> dict[str, str]:
    """An example project: package ``app`` with its Element, plus ``modules`` (by path)."""
    return {"app/__init__.py": "", "app/element.py": _ELEMENT,
            **{f"app/{path}": source for path, source in modules.items()}}


class ElementInitForwardsKwargs(Rule):
    """An Element subclass whose __init__ takes **kwargs passes them on to the parent.

    ## What it does
    For every project class descending, across modules, from a configured envelope base
    (by default LionAGI's `Element`), reports an `__init__` that accepts `**kwargs` but does
    not spread them into the parent initializer: no `super().__init__(...)`,
    `super(Cls, self).__init__(...)` or `Base.__init__(self, ...)` call in its body passes
    `**kwargs`, a dict built from them (`**{**kwargs, ...}`, `**dict(kwargs)`) or a mapping
    assembled in `__init__` (`**envelope`).

    ## Why it matters
    ADR-0001: `Element` gives every addressable object its identity envelope (`id`,
    `created_at`, `metadata`), and `from_dict` rebuilds an object by passing those fields
    back to its constructor. A custom `__init__` that swallows `**kwargs` (the `Edge`
    defect the ADR records: it nested them under `properties`) silently mints a new id and
    timestamp on every round trip, so references to the object no longer resolve.

    ## Example
    ```python
    class Edge(Element):
        def __init__(self, head, tail, **kwargs):     # ADR0001
            super().__init__(head=head, tail=tail, properties=kwargs)
    ```

    ## How to fix
    Pass the envelope on: `super().__init__(head=head, tail=tail, **kwargs)`, or pop the
    envelope keys first and spread them:
    `envelope = {k: kwargs.pop(k) for k in ("id", "created_at", "metadata") if k in kwargs}`
    then `super().__init__(..., properties=kwargs, **envelope)`.
    """

    code = "ADR0001"
    name = "element-init-forwards-kwargs"
    summary = "An Element subclass's __init__ that takes **kwargs must pass them to the parent"
    Options = Options

    valid = (
        Valid(_app({"node.py": (
            "from app.element import Element\n\n"
            "class Node(Element):\n"
            "    def __init__(self, content=None, **kwargs):\n"
            "        super().__init__(content=content, **kwargs)\n"
        )}), options=_BASES, name="forwards kwargs"),
        Valid(_app({"edge.py": (
            "from app.element import Element\n\n"
            "ENVELOPE = ('id', 'created_at', 'metadata')\n\n"
            "class Edge(Element):\n"
            "    def __init__(self, head, tail, **kwargs):\n"
            "        envelope = {k: kwargs.pop(k) for k in ENVELOPE if k in kwargs}\n"
            "        super(Edge, self).__init__(head=head, tail=tail, properties=kwargs,\n"
            "                                   **envelope)\n"
        )}), options=_BASES, name="pops the envelope and spreads it"),
        Valid(_app({"other.py": (
            "class Plain:\n"
            "    def __init__(self, **kwargs):\n"
            "        self.kwargs = kwargs\n"
        )}), options=_BASES, name="outside the family"),
    )
    invalid = (
        Invalid(_app({"graph/__init__.py": "from ..element import Element as Base\n",
                      "graph/edge.py": (
                          "from app.graph import Base\n\n"
                          "class Edge(Base):\n"
                          "    def __init__(self, head, tail, **kwargs):\n"
                          "        super().__init__(head=head, tail=tail, properties=kwargs)\n"
                      )}),
                expect=Expect(4, "ADR0001", 9, "Edge.__init__ takes **kwargs but does not pass "
                              "them to super().__init__(...)", path="app/graph/edge.py"),
                options=_BASES, name="nested under properties, through a re-export"),
        Invalid(_app({"node.py": (
            "from app.element import Element\n\n"
            "class Node(Element):\n"
            "    pass\n\n"
            "class Task(Node):\n"
            "    def __init__(self, **options):\n"
            "        self.__dict__['options'] = options\n"
        )}), expect=Expect(7, message="Task.__init__ takes **options but never calls the "
                                     "parent initializer"),
            options=_BASES, name="no parent call, two levels down"),
    )

    def check(self, project: Project) -> Iterable[Diagnostic]:
        index = project.index
        bases = frozenset(index.canonical(name) for name in self.options.bases)
        for symbol, chain in index.subclasses_of(bases).items():
            info, cls = index.classes[symbol]
            init = next((f for f in info.facts.functions
                         if f.scope == cls.qualname and f.name == "__init__"), None)
            if init is None or init.kwarg is None:
                continue
            parent_calls = [call for call in info.facts.calls if call.scope == init.qualname
                            and self._calls_parent_init(project, info, symbol, call)]
            if any(self._forwards(info, init, call.call) for call in parent_calls):
                continue
            yield self._report(index, info, cls, chain, init, parent_calls)

    def _calls_parent_init(self, project: Project, info: ModuleInfo, symbol: str,
                           call: CallFact) -> bool:
        func = call.func
        if func == "super().__init__":
            return True
        callee = call.call.func
        if func is None:  # `super(Edge, self).__init__`: the attribute of a call
            return (callee is not None and callee.kind == "attr" and callee.text == "__init__"
                    and callee.func is not None and callee.func.kind == "call"
                    and callee.func.func is not None and callee.func.func.ref == "super")
        owner, _, method = func.rpartition(".")
        if method != "__init__" or not owner:
            return False  # `Base.__init__(self, ...)`: Base must be an ancestor
        base = project.index.resolve(info.name, owner, call.scope)
        return base is not None and project.index.descent(symbol, {base}) is not None

    def _forwards(self, info: ModuleInfo, init: FunctionFact, call: Expr) -> bool:
        kwargs = init.kwarg
        built_here = {b.name for b in info.facts.bindings if b.scope == init.qualname}
        for key, value in call.keywords:
            if key != "**":
                continue
            if value.ref == kwargs or value.ref in built_here:
                return True
            if value.kind == "dict" and any(item.kind == "starred" and item.func is not None
                                            and item.func.ref == kwargs for item in value.items):
                return True
            if (value.kind == "call" and value.func is not None and value.func.ref == "dict"
                    and any(_mentions(arg, kwargs) for arg in
                            (*value.items, *(v for _, v in value.keywords)))):
                return True
        return False

    def _report(self, index: ProjectIndex, info: ModuleInfo, cls: ClassFact, chain: list[str],
                init: FunctionFact, parent_calls: list[CallFact]) -> Diagnostic:
        root = chain[-1]
        fields = _envelope_fields(index, root)
        lost = f"inherited {root.rpartition('.')[2]} fields" + (f" ({', '.join(fields)})"
                                                               if fields else "")
        related = [Related.at(info.path, call.span, "the parent initializer is called here "
                                                    f"without **{init.kwarg}")
                   for call in parent_calls]
        if root in index.classes:
            where, base = index.classes[root]
            related.append(Related.at(where.path, base.span,
                                      f"{base.qualname} defines the envelope here"))
        if parent_calls:
            problem = "does not pass them to super().__init__(...)"
        else:
            problem = "never calls the parent initializer"
        message = (f"{cls.qualname}.__init__ takes **{init.kwarg} but {problem}, so {lost} "
                   f"given to {cls.qualname}(...) are lost; ADR-0001: a subclass keeps the "
                   "Element envelope")
        return self.diagnostic(info.path, init.span, message, related=related,
                               scope=f"{info.name}.{init.qualname}")


def _mentions(expr: Expr, name: str | None) -> bool:
    if expr.ref == name:
        return True
    children = [*expr.items, *(v for v in expr.values if v is not None),
                *(v for _, v in expr.keywords)]
    if expr.func is not None:
        children.append(expr.func)
    return any(_mentions(child, name) for child in children)


def _envelope_fields(index: ProjectIndex, root: str) -> list[str]:
    """The fields the envelope class declares (annotated names in its body), when the
    project defines it: what a swallowed ``**kwargs`` loses."""
    if root not in index.classes:
        return []
    info, cls = index.classes[root]
    return [b.name for b in info.facts.bindings
            if b.scope == cls.qualname and b.kind == "annassign"]
