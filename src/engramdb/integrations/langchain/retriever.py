"""``EngramdbRetriever``: LangChain's ``BaseRetriever`` over engramdb's ``recall()``.

::

    from engramdb import SearchType
    from engramdb.integrations.langchain import EngramdbRetriever

    retriever = EngramdbRetriever(datasets=["docs"], search_type=SearchType.CHUNKS, top_k=5)
    for doc in retriever.invoke("When do owls hunt?"):
        print(doc.metadata["score"], doc.page_content)

``search_type`` is any :class:`~engramdb.SearchType` (``None``: engramdb's auto-routing, CHUNKS
without an LLM); ``recall_options`` passes any other ``recall()`` option (``node_name``,
``scope``, ``session_id``, ``system_prompt``, ``retriever_specific_config`` ...). Completion
types answer with the configured LLM: their answer is one Document (``metadata["kind"]`` says
which). Each Document's ``metadata`` holds ``source`` (graph, session, code, ...),
``search_type``, ``score`` (engramdb's raw distance for CHUNKS / SUMMARIES / SKILLS, lower is
closer; None elsewhere), ``kind``, ``dataset_id``, ``dataset_name`` and, for chunks and
summaries, ``data_id`` (the document), ``chunk_id``, ``chunk_index`` and ``document_name``.
Warm-up markers (a dataset still being built) are not documents and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from engramdb.engine import Engine
from engramdb.integrations._loop import LoopThread
from engramdb.models.records import User
from engramdb.models.results import ResponseMarkerEntry
from engramdb.models.search_type import SearchType

__all__ = ["EngramdbRetriever", "documents_from_results"]


class EngramdbRetriever(BaseRetriever):
    """Documents from engramdb memory for a query (see the module docstring)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    #: The engine to recall from, driven from the retriever's own loop thread (on PostgreSQL,
    #: give it an engine of its own); None: one opened on ``data_dir`` (ENGRAMDB_DATA_DIR
    #: default) and closed by :meth:`close`.
    engine: Engine | None = None
    data_dir: str | Path | None = None
    #: The search type; None lets engramdb route the query.
    search_type: SearchType | None = SearchType.CHUNKS
    #: Dataset names to search; None: every dataset the user can read.
    datasets: list[str] | None = None
    dataset_ids: list[UUID] | None = None
    top_k: int = 15
    user: User | None = None
    #: Any other keyword option of ``recall()``.
    recall_options: dict[str, Any] = Field(default_factory=dict)

    _loop: LoopThread = PrivateAttr(default_factory=lambda: LoopThread("engramdb-retriever"))
    _engine: Engine | None = PrivateAttr(default=None)

    def _memory(self) -> Engine:
        if self._engine is None:
            self._engine = self.engine or Engine(data_dir=self.data_dir)
        return self._engine

    async def _recall(self, query: str) -> list[Document]:
        results = await self._memory().recall(
            query,
            self.search_type,
            datasets=self.datasets,
            dataset_ids=self.dataset_ids,
            top_k=self.top_k,
            user=self.user,
            **self.recall_options,
        )
        return documents_from_results(results, self.search_type)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return self._loop.run(self._recall(query))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return await self._loop.arun(self._recall(query))

    def close(self) -> None:
        """Close the engine the retriever opened itself and stop its loop (idempotent)."""
        if self.engine is None and self._engine is not None and not self._engine.closed:
            self._loop.run(self._engine.close())
        self._loop.stop()


_TEXT_FIELDS = ("text", "answer", "content")
_PROVENANCE = ("data_id", "chunk_id", "chunk_index", "document_name")


def documents_from_results(
    results: Sequence[Any], search_type: SearchType | None = None
) -> list[Document]:
    """LangChain Documents for ``recall()`` results (markers left out); metadata values are
    JSON-friendly (ids as strings). ``search_type`` fills ``metadata["search_type"]`` of
    results that do not name the type that produced them (skills, session entries)."""
    docs: list[Document] = []
    for entry in results:
        if isinstance(entry, ResponseMarkerEntry):
            continue
        fields = entry.model_dump(mode="json", exclude={"raw"})
        text = next((fields.pop(f) for f in _TEXT_FIELDS if isinstance(fields.get(f), str)), "")
        extra = fields.pop("metadata", None) or {}
        metadata: dict[str, Any] = {
            "search_type": None if search_type is None else search_type.name,
            "score": None,
            "dataset_id": None,
            "dataset_name": None,
            **{k: extra.get(k) for k in _PROVENANCE if k in extra},
            **{k: v for k, v in fields.items() if v is not None or k not in ("search_type",)},
        }
        metadata.update({f"meta_{k}": v for k, v in extra.items() if k not in _PROVENANCE})
        docs.append(Document(page_content=text, metadata=metadata, id=_doc_id(metadata)))
    return docs


def _doc_id(metadata: dict[str, Any]) -> str | None:
    for key in ("chunk_id", "qa_id", "trace_id"):
        if isinstance(metadata.get(key), str):
            return str(metadata[key])
    return None
