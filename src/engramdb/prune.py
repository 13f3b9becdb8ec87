"""``engramdb.prune``: cognee's development resets, ``prune_data()`` and ``prune_system()``.

They act on every user's memory without permission checks, as cognee's do (use them in
development and tests, never behind a server). What each resets on engramdb's single store is
in their docstrings and in ``docs/migrating-from-cognee.md``::

    await engramdb.prune.prune_data()
    await engramdb.prune.prune_system(metadata=True)
"""

from __future__ import annotations

from engramdb.facade import verb_functions

__all__ = ["prune_data", "prune_system"]

_verbs = verb_functions("engramdb.prune")
prune_data = _verbs["prune_data"]
prune_system = _verbs["prune_system"]
