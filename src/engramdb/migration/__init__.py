"""Importing other memory systems' exports: mem0, Letta (MemGPT) and Zep / Graphiti.

Pass a source to ``remember()`` (or ``add()`` then ``cognify()``), as in cognee's
``cognee.migration``::

    from engramdb.migration import Mem0Source, LettaSource, ZepSource

    await engramdb.remember(Mem0Source("mem0_export.json"))
    await engramdb.remember(LettaSource("agent.af", mode="preserve"))
    await engramdb.remember(ZepSource("graphiti_dump.json"))  # mode="hybrid"

Each memory, core memory block, message batch, archival passage, episode, entity and fact
becomes one document tagged ``import:<system>`` whose ``external_metadata`` keeps the source's
ids, scope, categories and timestamps; :class:`MemorySource` says what each of the
:data:`IMPORT_MODES` does. Forget an import like any data: ``forget(dataset=...)`` or
``forget(data_id=...)`` per document.
"""

from engramdb.migration.base import IMPORT_MODES, ImportedRecord, MemorySource
from engramdb.migration.letta import LettaSource
from engramdb.migration.mem0 import Mem0Source
from engramdb.migration.zep import GraphitiSource, ZepSource

__all__ = [
    "IMPORT_MODES",
    "GraphitiSource",
    "ImportedRecord",
    "LettaSource",
    "Mem0Source",
    "MemorySource",
    "ZepSource",
]
