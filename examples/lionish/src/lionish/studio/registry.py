"""A decorator registry: importing a module that uses @studio_route appends to _ROUTES.

What the routes are depends on which modules happened to be imported, and in what order.
"""

_ROUTES: list[tuple[str, object]] = []


def studio_route(path: str):
    def decorator(fn):
        _ROUTES.append((path, fn))
        return fn

    return decorator


def routes() -> tuple[tuple[str, object], ...]:
    return tuple(_ROUTES)
