"""cognee's ``cognee.migration``: importers of other memory systems' exports.

``remember(Mem0Source(...))`` and the others work as in cognee (see :mod:`engramdb.migration`
for what each mode does here). cognee's export side (``export_dataset``, ``GraphSnapshot``, the
COGX archive classes) is not mirrored: importing one of those names fails at import.
"""

from engramdb.migration import (
    IMPORT_MODES,
    GraphitiSource,
    LettaSource,
    Mem0Source,
    MemorySource,
    ZepSource,
)

__all__ = [
    "IMPORT_MODES",
    "GraphitiSource",
    "LettaSource",
    "Mem0Source",
    "MemorySource",
    "ZepSource",
]
