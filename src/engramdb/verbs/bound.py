"""Verbs as :class:`~engramdb.Engine` methods: ``engine.recall(...)`` has ``recall``'s signature
(derived from its request model) and runs the handler on that engine."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from engramdb.engine import Engine

__all__ = ["EngineNamespace", "EngineVerb"]


class EngineVerb:
    """A descriptor: on an engine, the verb ``name`` bound to that engine."""

    def __init__(self, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, engine: None, owner: type[Any]) -> EngineVerb: ...
    @overload
    def __get__(
        self, engine: Engine, owner: type[Any]
    ) -> Callable[..., Coroutine[Any, Any, Any]]: ...
    def __get__(
        self, engine: Engine | None, owner: type[Any]
    ) -> EngineVerb | Callable[..., Coroutine[Any, Any, Any]]:
        if engine is None:
            return self
        return bind_verb(engine, self.name)


def bind_verb(engine: Engine, name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    """Verb ``name`` as a coroutine function running on ``engine``."""
    from engramdb.verbs import VERBS

    verb = VERBS[name]

    async def method(*args: Any, **kwargs: Any) -> Any:
        request = verb.bind(args, kwargs)
        engine._check_open()
        return await verb.handler(engine, request)

    method.__name__ = method.__qualname__ = name
    method.__signature__ = verb.signature  # type: ignore[attr-defined]
    method.__doc__ = inspect.getdoc(verb.handler)
    return method


class EngineNamespace:
    """``engine.session``: the verbs of one namespace (e.g. ``engramdb.session``) bound to an
    engine, with the module-level functions' signatures."""

    def __init__(self, engine: Engine, namespace: str) -> None:
        from engramdb.verbs import VERBS

        self._engine = engine
        self._names = frozenset(n for n, v in VERBS.items() if v.namespace == namespace)

    def __getattr__(self, name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
        if name not in self._names:
            raise AttributeError(name)
        return bind_verb(self._engine, name)

    def __dir__(self) -> list[str]:
        return sorted(self._names)
