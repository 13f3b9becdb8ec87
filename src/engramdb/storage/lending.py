"""Lending a held lock to work that runs on the holder's behalf.

Store locks are not re-entrant: taking a lock this task already holds waits for itself (the
conformance suite pins that). Some holders run code that takes the same lock again — improve's
``custom_tasks`` stage holds the dataset lock and runs the caller's tasks, and a task that calls
``add_data_points`` takes that dataset's ingest lock. Such a holder *lends* the lock for the
duration of that code with :func:`lend_locks`; inside, :func:`lent_or` hands back a no-op in
place of acquiring a lent lock of the same store object.

The loan lives in a context variable, so it follows the code it was lent to (and background
tasks that code spawns, which copy the context) and nothing else; it ends when the block
exits — a task spawned inside that outlives the block takes the lock normally from then on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["dataset_lock", "lend_locks", "lent_or"]


def dataset_lock(dataset_id: object) -> str:
    """The name of the store lock every write to one dataset holds (ingest, improve, forget)."""
    return f"dataset:{dataset_id}"


@dataclass(eq=False, slots=True)
class _Loan:
    store: int  #: ``id()`` of the store object whose lock is lent
    names: frozenset[str]
    active: bool = True

    def covers(self, store: object, name: str) -> bool:
        return self.active and self.store == id(store) and name in self.names


_LOANS: ContextVar[tuple[_Loan, ...]] = ContextVar("engramdb_lent_locks", default=())


@contextlib.contextmanager
def lend_locks(store: object, *names: str) -> Iterator[None]:
    """Within the block, taking one of ``names`` on ``store`` (which the caller holds) does
    not wait: the holder's lock covers it."""
    loan = _Loan(id(store), frozenset(names))
    token = _LOANS.set((*_LOANS.get(), loan))
    try:
        yield
    finally:
        loan.active = False  # also for contexts copied from this one (spawned tasks)
        _LOANS.reset(token)


def lent_or(
    store: object, name: str, acquire: Callable[[], AbstractAsyncContextManager[None]]
) -> AbstractAsyncContextManager[None]:
    """The lock ``name`` of ``store``: a no-op when lent to the running code, else
    ``acquire()``."""
    if any(loan.covers(store, name) for loan in _LOANS.get()):
        return contextlib.nullcontext()
    return acquire()
