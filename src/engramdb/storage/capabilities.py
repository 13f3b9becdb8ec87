"""Optional store features, declared instead of discovered with ``isinstance``.

A store lists what it can do in :attr:`~engramdb.storage.base.Store.capabilities`; callers ask
``store.supports(Capability.X)`` and never look at the store's class. A feature a store does not
declare raises FeatureNotAvailableError when it is used anyway.
"""

from __future__ import annotations

from enum import StrEnum

from engramdb.errors import StatementTimeoutError

__all__ = ["Capability", "StatementTimeoutError"]


class Capability(StrEnum):
    #: Graph queries as SQL (``Store.query_sql``): one read-only, parameterised SELECT over
    #: the ``nodes`` / ``edges`` tables in the store's ``dialect``, bounded in time (what the
    #: CYPHER search type compiles to and runs).
    CYPHER = "cypher"
    #: Vector searches may be approximate (an ANN index answers above a size threshold).
    APPROXIMATE_VECTORS = "approximate_vectors"
