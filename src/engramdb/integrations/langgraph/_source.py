"""The items of one LangGraph ``put`` batch as a memory source: the documents
:class:`~engramdb.integrations.langgraph.store.EngramdbStore` hands to ``remember()``."""

from __future__ import annotations

import dataclasses
import hashlib
from uuid import UUID

from engramdb.ingest.types import LoadedDocument
from engramdb.integrations.langgraph._chunker import FIELD_SPANS
from engramdb.integrations.langgraph._mapping import item_data_id
from engramdb.migration.base import ImportedRecord, MemorySource

__all__ = ["ItemsSource"]


class ItemsSource(MemorySource):
    """The store items of one ``put`` batch, as documents for ``remember()``: kept verbatim
    (no graph extraction), each under the data id of its (user, namespace, key)."""

    source_system = "langgraph"
    export_name = "LangGraph store items"

    def __init__(self, records: list[ImportedRecord], user_id: UUID, dataset: str) -> None:
        super().__init__(mode="preserve")
        self._records = records
        self._user_id = user_id
        self._dataset = dataset

    @property
    def node_set(self) -> list[str]:
        return ["langgraph_store"]

    def read(self, *, max_file_bytes: int = 0) -> list[ImportedRecord]:
        return self._records

    def documents(self, *, max_file_bytes: int = 0) -> list[LoadedDocument]:
        docs = []
        for doc, record in zip(super().documents(), self._records, strict=True):
            # One identity per key: the item replaced in place, never skipped as a duplicate.
            identity = f"langgraph-store\x00{self._dataset}\x00{record.external_id}"
            metadata = dict(doc.external_metadata)
            spans = metadata.pop(FIELD_SPANS)
            docs.append(
                dataclasses.replace(
                    doc,
                    content_hash=hashlib.sha256(identity.encode("utf-8")).hexdigest(),
                    data_id=item_data_id(self._user_id, self._dataset, record.external_id),
                    external_metadata=metadata,
                    metadata={**doc.metadata, FIELD_SPANS: spans},
                )
            )
        return docs
