"""The automatic improve after remember (``self_improvement=True``, ``IMPROVE_AUTO_ENABLED``).

* After a graph ingest: an improve of the dataset without sessions (the graph stages).
* After ``remember(session_id=...)``: an improve bridging that session, debounced. The entries
  trigger runs it once ``IMPROVE_DEBOUNCE_ENTRIES`` new entries arrived since the last automatic
  improve of the session (``0`` turns it off); the time trigger once
  ``IMPROVE_DEBOUNCE_SECONDS`` passed since the last one (``0`` turns it off). With the seconds
  set and the entries trigger at its default of 1, the entries trigger steps aside: time-only.
  Entries held back are not dropped: the next improve that runs bridges them.

The counters live in the dataset's improve state, so every process sees the same debounce. An
automatic improve never fails the remember() that triggered it: its failure is logged and
reported as ``RememberResult.improve == "errored"``. A due improve is first put to the
application's admission check (:mod:`.admission`); a declined one reports ``"declined"``, and
a declined session improve keeps its entries counted.
"""

from __future__ import annotations

import json
import logging
import time

from engramdb.engine import Engine
from engramdb.errors import EngramError
from engramdb.improvement.admission import DECLINED, ImproveAdmission, admit_automatic_improve
from engramdb.improvement.context import ImproveOptions
from engramdb.models.records import Dataset, User
from engramdb.storage.lending import dataset_lock, lend_locks

__all__ = ["auto_improve_after_ingest", "auto_improve_after_session_write", "wants_auto_improve"]

logger = logging.getLogger(__name__)


def wants_auto_improve(engine: Engine, self_improvement: bool) -> bool:
    return bool(self_improvement) and engine.settings.improve_auto_enabled


async def _run(
    engine: Engine, owner: User, dataset: Dataset, options: ImproveOptions, *, resolved: bool
) -> str:
    """``resolved``: the caller resolved ``dataset`` for ``owner`` with write permission just
    now (no second lookup)."""
    from engramdb.improvement.runner import improve_dataset, improve_resolved

    try:
        if resolved:
            result = await improve_resolved(engine, owner, dataset, options)
        else:
            result = await improve_dataset(dataset.id, options, user=owner, engine=engine)
    except EngramError as exc:  # documented boundary: remember() already succeeded
        logger.warning("automatic improve of dataset %s failed: %s", dataset.id, exc)
        return "errored"
    return result.status


async def auto_improve_after_ingest(
    engine: Engine, owner: User, dataset: Dataset, *, holding_lock: bool = False
) -> str:
    """The graph stages after an ingest; returns the improve's status (``"declined"`` when the
    admission check declined it).

    ``holding_lock``: the caller (remember()) resolved ``dataset`` for ``owner`` with write
    permission and holds its lock (``dataset:<id>``) since the ingest; the improve runs under
    it (lent, :mod:`engramdb.storage.lending`) instead of releasing and taking it again. The
    admission check runs outside the loan."""
    if not await admit_automatic_improve(ImproveAdmission(owner, dataset, "ingest")):
        return DECLINED
    options = ImproveOptions(automatic=True)
    if not holding_lock:
        return await _run(engine, owner, dataset, options, resolved=False)
    with lend_locks(engine.store, dataset_lock(dataset.id)):
        return await _run(engine, owner, dataset, options, resolved=True)


async def auto_improve_after_session_write(
    engine: Engine, owner: User, dataset: Dataset, session_id: str, entries: int
) -> str:
    """Count ``entries`` new session entries and run the improve when the debounce says so;
    returns its status, ``"debounced"`` when it was held back, or ``"declined"`` when the
    admission check declined it (the entries stay counted)."""
    settings, store = engine.settings, engine.store
    key = f"auto_improve:{owner.id}:{session_id}"
    raw = await store.get_improve_state(dataset.id, key)
    state = json.loads(raw) if raw else {"pending": 0, "last": 0.0}
    pending, last, now = int(state["pending"]) + entries, float(state["last"]), time.time()
    every_n, every_s = settings.improve_debounce_entries, settings.improve_debounce_seconds
    # "set on its own": seconds given while the entries trigger is at its default of 1
    entries_on = every_n > 0 and (every_s == 0 or every_n != 1)
    due = (entries_on and pending >= every_n) or (every_s > 0 and now - last >= every_s)
    if not entries_on and every_s == 0:
        due = False  # both triggers off: never automatically
    admission = ImproveAdmission(owner, dataset, "session", session_id)
    declined = due and not await admit_automatic_improve(admission)
    if not due or declined:
        await store.set_improve_state(
            dataset.id, key, json.dumps({"pending": pending, "last": last})
        )
        return DECLINED if declined else "debounced"
    await store.set_improve_state(dataset.id, key, json.dumps({"pending": 0, "last": now}))
    options = ImproveOptions(session_ids=(session_id,))
    return await _run(engine, owner, dataset, options, resolved=True)
