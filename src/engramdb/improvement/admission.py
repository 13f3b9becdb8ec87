"""Declining the automatic improve: the admission check an embedding application registers.

An application that embeds engramdb can decline a single automatic improve at runtime — when
the tenant it serves has no LLM budget left, say — by registering an admission check with
:func:`register_improve_admission_check`. Before each automatic improve after remember (one
that is due: the debounce already let it through) the check is called with an
:class:`ImproveAdmission`; a falsy answer declines that improve, and the remember() reports
``RememberResult.improve == "declined"``. A check that raises declines too (its error is
logged): a broken budget check must not spend the budget. Nothing is lost: a declined session
improve keeps its entries counted, so the next remember of the session asks again, and the
next improve that runs bridges them.

After a remember() that extracted its documents, the check runs while that remember holds
the dataset's lock (the improve follows under it, :func:`.auto.auto_improve_after_ingest`), so
it must not write to that dataset.
Explicit ``improve()`` calls are never gated by it. One check is registered per process;
registering another replaces it, and ``None`` removes it.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from engramdb.models.records import Dataset, User

__all__ = [
    "DECLINED",
    "AdmissionCheck",
    "ImproveAdmission",
    "admit_automatic_improve",
    "register_improve_admission_check",
]

logger = logging.getLogger(__name__)

#: The result of a declined automatic improve, as ``RememberResult.improve`` reports it.
DECLINED = "declined"


@dataclass(frozen=True, slots=True)
class ImproveAdmission:
    """What an admission check is asked about: the automatic improve of ``dataset`` for
    ``user``, after a graph ingest (``trigger="ingest"``, ``session_id`` None) or after
    session writes (``trigger="session"``)."""

    user: User
    dataset: Dataset
    trigger: Literal["ingest", "session"]
    session_id: str | None = None


AdmissionCheck = Callable[[ImproveAdmission], bool | Awaitable[bool]]

_registered: list[AdmissionCheck] = []


def register_improve_admission_check(check: AdmissionCheck | None) -> None:
    """Register ``check`` (a function or coroutine function of an :class:`ImproveAdmission`
    returning whether the automatic improve may run), replacing any registered one; ``None``
    removes it."""
    if check is not None and not callable(check):
        from engramdb.errors import EngramValidationError

        raise EngramValidationError(
            "register_improve_admission_check() takes a function of an ImproveAdmission "
            f"returning True to run the automatic improve (or None), got {type(check).__name__}"
        )
    _registered.clear()
    if check is not None:
        _registered.append(check)


async def admit_automatic_improve(admission: ImproveAdmission) -> bool:
    """Whether the registered check (if any) lets this automatic improve run."""
    if not _registered:
        return True
    try:
        answer = _registered[0](admission)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception as exc:  # the embedding application's code: declined, never raised
        logger.warning(
            "improve admission check failed (%s: %s); the automatic improve of dataset %s is "
            "declined",
            type(exc).__name__,
            exc,
            admission.dataset.id,
        )
        return False
    return bool(answer)
