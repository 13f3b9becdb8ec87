"""The narrow port every backend implements to run the shared units of work."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar

from engramdb.storage.dialect import SqlDialect
from engramdb.storage.sql.unit import UnitFactory

__all__ = ["UnitPort"]

T = TypeVar("T")


class UnitPort(ABC):
    """What the shared store methods need from a backend: its dialect and two runners."""

    dialect: SqlDialect

    @abstractmethod
    async def _read_unit(self, unit: UnitFactory[T], *, snapshot: bool = False) -> T:
        """Run ``unit()`` in one read transaction (``snapshot``: its statements see one
        snapshot); the factory may be called again when the transaction is retried."""

    @abstractmethod
    async def _write_unit(self, unit: UnitFactory[T]) -> T:
        """Run ``unit()`` in one read-write transaction (retried as :meth:`_read_unit`)."""
