"""Apps for the tests: each test's own bank behind routes built once per process.

FastAPI builds an app's routes (their dependants, their response models) the first time
requests reach them: about 0.15 s of CPU for a whole app, and the suite's fixtures make near a
thousand. An app a test has finished with is bound to the next test's settings instead
(`app.main.bind`): new settings, database, pins and middleware, no dependency overrides, the
routes already built. An app whose routes or state a test changed is not reused.
"""

import weakref
from dataclasses import dataclass

from fastapi import FastAPI

from app.config import Settings
from app.main import bind, create_app


@dataclass(frozen=True)
class _Shape:
    """What `bind` leaves as it is, as `create_app` made it."""

    routes: int
    state: frozenset[str]
    middleware: int
    handlers: frozenset[object]

    @classmethod
    def of(cls, app: FastAPI) -> "_Shape":
        return cls(
            routes=len(app.router.routes),
            state=frozenset(vars(app.state)["_state"]),
            middleware=len(app.user_middleware),
            handlers=frozenset(app.exception_handlers),
        )


_made: "weakref.WeakKeyDictionary[FastAPI, _Shape]" = weakref.WeakKeyDictionary()
_idle: list[FastAPI] = []


def take(settings: Settings) -> FastAPI:
    """An app over the bank of `settings`: one a finished test gave back, or a new one."""
    if _idle:
        app = _idle.pop()
        bind(app, settings)
        return app
    app = create_app(settings)
    _made[app] = _Shape.of(app)
    return app


def give_back(app: FastAPI) -> None:
    """Let a later test use `app`, once its clients are closed and its lifespan has ended."""
    app.dependency_overrides.clear()
    if _made.get(app) == _Shape.of(app) and app not in _idle:
        _idle.append(app)
