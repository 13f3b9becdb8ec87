"""engramdb for LlamaIndex: a retriever over ``recall`` and a memory block for agent memory.

Needs the ``llamaindex`` extra (``pip install 'engramdb[llamaindex]'``, LlamaIndex's
``llama-index-core``).

* :class:`EngramdbRetriever` is a ``BaseRetriever``: ``retrieve(query)`` / ``aretrieve(query)``
  run ``recall`` and return one ``NodeWithScore`` per result, its ``TextNode`` carrying the text
  and, as metadata, where it came from (``dataset_name``, ``dataset_id``, ``document_id``,
  ``chunk_id``, ``search_type``, ``source`` ...). Any search type is chosen with
  ``search_type=`` (default ``CHUNKS``: the remembered passages themselves).
* :class:`EngramdbMemoryBlock` is a block of LlamaIndex's ``Memory``: messages that leave the
  short-term chat history are remembered as one document of a dataset, and every ``get`` recalls
  what is relevant to the latest messages. Each ``Memory`` session's memories are its own unless
  ``share_across_sessions=True``.

Both take ``engine=`` (an :class:`engramdb.Engine`; default: the module-level memory, which
also serves remote mode) and ``user=`` (whose datasets they read and write).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any, cast

try:
    from llama_index.core.async_utils import asyncio_run
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.base.llms.types import ChatMessage, TextBlock
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.memory.memory import BaseMemoryBlock
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
    from pydantic import ConfigDict, Field, field_validator
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "engramdb.integrations.llamaindex needs LlamaIndex: pip install 'engramdb[llamaindex]'"
    ) from exc

import engramdb
from engramdb.errors import DatasetNotFoundError, EngramValidationError, RecallPreconditionError
from engramdb.models.requests.common import search_type_from_name
from engramdb.models.results import (
    ResponseAgentTraceEntry,
    ResponseGraphEntry,
    ResponseMarkerEntry,
    ResponseQAEntry,
    ResponseSessionContextEntry,
    ResponseSkillEntry,
    ResponseToolEntry,
)
from engramdb.models.search_type import SearchType

__all__ = ["DISTANCE_SCORED", "EngramdbMemoryBlock", "EngramdbRetriever", "result_to_node"]

logger = logging.getLogger(__name__)

#: Namespace of the node ids made for results that carry no id of their own (answers, guidance).
_NODE_NAMESPACE = uuid.UUID("1f6f1f5e-8f43-4b4e-9a55-6c1f1b0d7e21")

#: Metadata keys that identify rather than describe: kept out of what the LLM and embedder see.
_ID_KEYS = ("dataset_id", "document_id", "chunk_id", "qa_id", "trace_id", "node_id")

#: Search types whose ``score`` is the raw vector distance (lower is better, cosine distance for
#: the built-in stores). LlamaIndex reads a node's score as higher-is-better (cutoffs, fusion),
#: so their nodes score ``1 - distance`` and keep the raw value as ``metadata["distance"]``.
DISTANCE_SCORED = frozenset({SearchType.CHUNKS, SearchType.SUMMARIES, SearchType.SKILLS})

#: Prefix of the node set that holds one LlamaIndex ``Memory`` session's memories.
SESSION_NODE_SET_PREFIX = "llamaindex-session:"


def _target(engine: engramdb.Engine | None) -> Any:
    """What the verbs are called on: the given engine, or the module (current memory/remote)."""
    return engine if engine is not None else engramdb


def _scalar(value: Any) -> Any:
    """A metadata value LlamaIndex stores as it is: str, int, float, bool or None."""
    return value if value is None or isinstance(value, str | int | float | bool) else str(value)


def _graph_node(entry: ResponseGraphEntry) -> tuple[str, dict[str, Any], str | None]:
    meta = entry.metadata
    metadata: dict[str, Any] = {
        "source": entry.source,
        "search_type": entry.search_type,
        "kind": entry.kind,
        "dataset_name": entry.dataset_name,
        "dataset_id": _scalar(entry.dataset_id),
        "document_id": _scalar(meta.get("data_id")),
        "document_name": _scalar(meta.get("document_name")),
        "chunk_id": _scalar(meta.get("chunk_id")),
        "chunk_index": _scalar(meta.get("chunk_index")),
    }
    for key, value in meta.items():
        if key not in ("data_id", "chunk_id", "chunk_index", "document_name"):
            metadata.setdefault(key, _scalar(value))
    # A chunk (or summary of one) keeps its chunk id; other results get an id from their text.
    own = meta.get("chunk_id") if entry.kind in ("chunk", "summary") else meta.get("node_id")
    return entry.text, metadata, str(own) if own else None


def result_to_node(entry: Any) -> NodeWithScore | None:
    """One ``recall`` result as a ``NodeWithScore`` (None for a warm-up or failure marker).

    The node's score is higher-is-better, as LlamaIndex reads it: ``1 - distance`` for the
    distance-scored search types (:data:`DISTANCE_SCORED`; the raw distance stays in
    ``metadata["distance"]``), recall's own score otherwise (HYBRID_COMPLETION's similarity), and
    None where recall has none (``CHUNKS_LEXICAL``, an LLM answer). Session Q&A turns, trace
    steps, guidance, skills and tool results become nodes too, ``source`` saying which.
    """
    own_id: str | None = None
    score: float | None = None
    if isinstance(entry, ResponseGraphEntry):  # also ResponseCodeEntry
        text, metadata, own_id = _graph_node(entry)
        score = entry.score
        if score is not None and entry.search_type in DISTANCE_SCORED:
            metadata["distance"] = score
            score = 1.0 - score
    elif isinstance(entry, ResponseQAEntry):
        text = "\n".join(
            part
            for part in (
                f"Q: {entry.question}" if entry.question else "",
                f"A: {entry.answer}" if entry.answer else "",
            )
            if part
        )
        text = text or entry.context
        metadata = {"source": entry.source, "qa_id": entry.qa_id, "time": entry.time}
        own_id = entry.qa_id
    elif isinstance(entry, ResponseAgentTraceEntry):
        text = entry.session_feedback or f"{entry.origin_function} ({entry.status})"
        metadata = {
            "source": entry.source,
            "trace_id": entry.trace_id,
            "origin_function": entry.origin_function,
            "status": entry.status,
            "time": entry.time,
        }
        own_id = entry.trace_id
    elif isinstance(entry, ResponseSessionContextEntry):
        text = entry.content
        metadata = {"source": entry.source, "context_profile": entry.context_profile}
    elif isinstance(entry, ResponseSkillEntry):
        text = entry.text
        metadata = {"source": entry.source, "skill_name": _scalar(entry.skill.get("name"))}
        if entry.score is not None:  # a vector distance, like CHUNKS
            metadata["distance"] = entry.score
            score = 1.0 - entry.score
    elif isinstance(entry, ResponseToolEntry):
        text = entry.text
        metadata = {"source": entry.source, "tool_name": entry.tool_name, "success": entry.success}
    elif isinstance(entry, ResponseMarkerEntry):
        logger.info("recall returned no results yet: %s (%s)", entry.status, entry.text)
        return None
    else:  # pragma: no cover - every RecallResponse member is handled above
        raise TypeError(f"not a recall result: {type(entry).__name__}")
    node_id = own_id or str(uuid.uuid5(_NODE_NAMESPACE, f"{metadata['source']}\n{text}"))
    hidden = [key for key in _ID_KEYS if key in metadata]
    node = TextNode(
        id_=node_id,
        text=text,
        metadata=metadata,
        excluded_llm_metadata_keys=hidden,
        excluded_embed_metadata_keys=hidden,
    )
    return NodeWithScore(node=node, score=score)


def _search_type(value: SearchType | str | None) -> SearchType | None:
    """``"chunks"`` / ``"CHUNKS"`` / SearchType.CHUNKS; an unknown name is refused at once."""
    try:
        parsed = search_type_from_name(value)
    except ValueError as exc:
        raise EngramValidationError(f"{exc} (or None to let recall route)") from None
    return cast(SearchType | None, parsed)


class EngramdbRetriever(BaseRetriever):
    """A LlamaIndex retriever that answers from engramdb memory with ``recall``.

    ``search_type`` picks the search (any :class:`engramdb.SearchType`; default ``CHUNKS``, the
    remembered passages ranked by similarity; None lets recall route the query). ``datasets`` /
    ``dataset_ids`` limit it, ``top_k`` caps the results, ``node_name`` keeps only nodes of
    those node sets, ``session_id`` and ``scope`` search a session too. Any other ``recall``
    option goes in ``recall_options``. Results keep recall's order.
    """

    def __init__(
        self,
        *,
        search_type: SearchType | str | None = SearchType.CHUNKS,
        datasets: Sequence[str] | None = None,
        dataset_ids: Sequence[uuid.UUID] | None = None,
        top_k: int = 5,
        node_name: Sequence[str] | None = None,
        session_id: str | None = None,
        scope: str | list[str] | None = None,
        user: Any = None,
        engine: engramdb.Engine | None = None,
        recall_options: dict[str, Any] | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        super().__init__(callback_manager=callback_manager, verbose=verbose)
        self.search_type = _search_type(search_type)
        options: dict[str, Any] = {"top_k": top_k, **(recall_options or {})}
        for key, value in (
            ("datasets", list(datasets) if datasets is not None else None),
            ("dataset_ids", list(dataset_ids) if dataset_ids is not None else None),
            ("node_name", list(node_name) if node_name is not None else None),
            ("session_id", session_id),
            ("scope", scope),
            ("user", user),
        ):
            if value is not None:
                options[key] = value
        self.recall_options = options
        self._engine = engine

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        results = await _target(self._engine).recall(
            query_bundle.query_str, self.search_type, **self.recall_options
        )
        return [node for node in map(result_to_node, results) if node is not None]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes: list[NodeWithScore] = asyncio_run(self._aretrieve(query_bundle))
        return nodes


def _message_text(message: ChatMessage) -> str:
    return "".join(block.text for block in message.blocks if isinstance(block, TextBlock))


class EngramdbMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory for LlamaIndex's ``Memory``, kept in an engramdb dataset.

    ``put``: the messages (those flushed out of the short-term history, or given directly) are
    remembered as ONE document of ``dataset_name``, a line ``role: text`` per message, tagged
    with the ``Memory`` session (node set ``llamaindex-session:<session_id>``). Messages
    without text are left out; nothing is written when none has any.

    ``get``: the text of the latest ``retrieval_context_window`` messages is the query;
    ``recall`` with ``search_type`` returns up to ``top_k`` memories of this session (of every
    session with ``share_across_sessions=True``), joined by blank lines. "" before anything was
    remembered. ``remember_options`` / ``recall_options`` pass further options to the verbs.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = Field(default="engramdb_memory", description="The name of the memory block.")
    description: str | None = Field(
        default="Facts remembered from earlier in the conversation (engramdb).",
        description="A description of the memory block.",
    )
    dataset_name: str = Field(default="llamaindex_memory", description="Where memories go.")
    search_type: SearchType = Field(default=SearchType.CHUNKS, description="How to recall.")
    top_k: int = Field(default=3, ge=1, description="Memories returned per get.")
    retrieval_context_window: int = Field(
        default=5, ge=1, description="How many of the latest messages form the query."
    )
    share_across_sessions: bool = Field(
        default=False, description="Recall memories of every Memory session, not just this one."
    )
    user: Any = Field(default=None, description="The engramdb user (default: the default user).")
    engine: Any = Field(default=None, description="An engramdb.Engine (default: module memory).")
    remember_options: dict[str, Any] = Field(default_factory=dict)
    recall_options: dict[str, Any] = Field(default_factory=dict)

    _search_type_name = field_validator("search_type", mode="before")(search_type_from_name)

    def _user_option(self) -> dict[str, Any]:
        return {"user": self.user} if self.user is not None else {}

    @staticmethod
    def _session_node_set(session_id: str | None) -> list[str] | None:
        return [f"{SESSION_NODE_SET_PREFIX}{session_id}"] if session_id else None

    async def _aget(
        self,
        messages: list[ChatMessage] | None = None,
        session_id: str | None = None,
        **block_kwargs: Any,
    ) -> str:
        recent = (messages or [])[-self.retrieval_context_window :]
        query = " ".join(text for text in map(_message_text, recent) if text.strip())
        if not query.strip():
            return ""
        options: dict[str, Any] = {
            "datasets": [self.dataset_name],
            "top_k": self.top_k,
            **self._user_option(),
            **self.recall_options,
        }
        node_sets = self._session_node_set(session_id)
        if node_sets is not None and not self.share_across_sessions:
            options["node_name"] = node_sets
        try:
            results = await _target(self.engine).recall(query, self.search_type, **options)
        except (DatasetNotFoundError, RecallPreconditionError):  # nothing remembered yet
            return ""
        nodes = [node for node in map(result_to_node, results) if node is not None]
        return "\n\n".join(node.node.get_content() for node in nodes)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        lines: list[str] = []
        session_id: str | None = None
        for message in messages:
            session_id = message.additional_kwargs.get("session_id", session_id)
            text = _message_text(message).strip()
            if text:
                lines.append(f"{message.role.value}: {text}")
        if not lines:
            return
        options: dict[str, Any] = {**self._user_option(), **self.remember_options}
        node_sets = self._session_node_set(session_id)
        if node_sets is not None:  # always tagged, so a later per-session get finds it
            options["node_set"] = [*options.get("node_set", []), *node_sets]
        await _target(self.engine).remember("\n".join(lines), self.dataset_name, **options)
