"""cognee engine factories engramdb has no counterpart for, refused with what to use instead.

cognee hands out separate vector and cache (session) engines; engramdb keeps vectors and
sessions in its one store behind the verbs. Programs often only ``cache_clear()`` these
factories after changing the environment; that works (there is nothing to clear). Calling one
raises FeatureNotAvailableError naming the supported call.
"""

from __future__ import annotations

from typing import Any, NoReturn

from engramdb.errors import FeatureNotAvailableError

__all__ = ["RefusedFactory"]


class RefusedFactory:
    """A cognee factory function that refuses to build its engine (module docstring)."""

    def __init__(self, name: str, instead: str) -> None:
        self.__name__ = self.__qualname__ = name
        self._instead = instead
        self.__doc__ = f"Refused on engramdb: use {instead}."

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise FeatureNotAvailableError(
            f"{self.__name__}() is not available on engramdb, which keeps vectors and sessions "
            f"in its one store behind the verbs: use {self._instead} instead"
        )

    def cache_clear(self) -> None:
        """Nothing to clear."""
