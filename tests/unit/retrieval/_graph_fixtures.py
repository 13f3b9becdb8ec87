"""Shared helpers for the graph-family and RAG retriever tests.

Memories are built with the public ``engramdb.remember`` (offline heuristic extractor, fake
embedder from the global conftest) and retrievers are called directly with a
:class:`RetrievalContext` built from the engine, the way ``recall()`` builds it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

import engramdb
from engramdb.engine import get_engine
from engramdb.models.records import Edge, Node
from engramdb.models.results import ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.storage.base import FloatArray, ScoredId, Subgraph
from engramdb.storage.sqlite import SqliteStore
from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply

#: The importance-weight seed's three memories and their weights.
SEED = [
    (
        "Diana and Tom were born and raised in Helsinki. Diana currently resides in Berlin, "
        "while Tom never moved.",
        0.5,
    ),
    ("Alice moved to Paris in 2010, while Bob has always lived in New York.", 0.7),
    ("Andreas was born in Venice, but later settled in Lisbon.", 0.3),
]
SEED_QUERY = "In which cities did Andreas live?"


async def remember_seed(dataset: str = "importance_demo") -> None:
    for text, weight in SEED:
        await engramdb.remember(
            text, dataset_name=dataset, importance_weight=weight, self_improvement=False
        )


async def make_ctx(*, store: Any = None, with_llm: bool = False) -> RetrievalContext:
    """The context recall() would build for the default user over all of its datasets."""
    engine = get_engine()
    await engine.ensure_setup()
    owner = await engine.store.get_or_create_default_user()
    return RetrievalContext(
        store=store or engine.store,
        embedder=engine.embedder,
        llm=engine.llm if with_llm else None,
        settings=engine.settings,
        datasets=await engine.store.list_datasets(owner.id),
        user=owner,
    )


async def ask(
    retriever: Retriever, ctx: RetrievalContext, opts: RecallOptions
) -> list[ResponseGraphEntry]:
    """``retriever.retrieve`` narrowed to the graph entries these types return."""
    results = await retriever.retrieve(ctx, opts)
    entries = [r for r in results if isinstance(r, ResponseGraphEntry)]
    assert len(entries) == len(results)
    return entries


def options(query: str, search_type: SearchType, **kwargs: Any) -> RecallOptions:
    return RecallOptions(query=query, search_type=search_type, **kwargs)


def use_llm(server: OpenAIServer) -> None:
    """Point the engine at the scripted local server (after the memory is built offline)."""
    engramdb.config.set("llm_endpoint", server.base_url)
    engramdb.config.set("llm_api_key", "test-key")
    engramdb.config.set("llm_model", "test-chat")
    engramdb.config.set("llm_max_retries", 1)
    engramdb.config.set("llm_timeout", 5)


async def close_llm() -> None:
    """Close the engine's LLM client on the test's own loop (no 'Event loop is closed' noise)."""
    llm = get_engine().llm
    if llm is not None:
        await llm.close()


def chat_reply(content: str | dict[str, Any]) -> Reply:
    text = content if isinstance(content, str) else json.dumps(content)
    return Reply.json(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "test-chat",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
    )


def system_text(request: RecordedRequest) -> str:
    return str(request.json["messages"][0]["content"])


def user_text(request: RecordedRequest) -> str:
    return str(request.json["messages"][-1]["content"])


@dataclass
class Reads:
    """What a :class:`CountingStore` was asked for."""

    calls: dict[str, int] = field(default_factory=dict)
    nodes: int = 0
    edges: int = 0
    vector_top_k: list[int] = field(default_factory=list)


class CountingStore(SqliteStore):
    """The real SQLite store on the engine's file, counting the rows each read returns.

    It wraps rather than mocks: every call runs the real query.
    """

    def __init__(self, path: Any) -> None:
        super().__init__(path)
        self.reads = Reads()

    def _count(self, name: str) -> None:
        self.reads.calls[name] = self.reads.calls.get(name, 0) + 1

    async def get_nodes(self, node_ids: Sequence[UUID], *, provenance: bool = True) -> list[Node]:
        self._count("get_nodes")
        nodes = await super().get_nodes(node_ids, provenance=provenance)
        self.reads.nodes += len(nodes)
        return nodes

    async def neighbourhood(
        self, node_ids: Sequence[UUID], *, depth: int = 1, limit: int = 1000
    ) -> Subgraph:
        self._count("neighbourhood")
        sub = await super().neighbourhood(node_ids, depth=depth, limit=limit)
        self.reads.nodes += len(sub.nodes)
        self.reads.edges += len(sub.edges)
        return sub

    async def incident_edges(
        self,
        node_ids: Sequence[UUID],
        *,
        direction: Literal["out", "in"],
        relations: Sequence[str] | None = None,
        exclude_relations: Sequence[str] = (),
        limit_per_node: int = 50,
        provenance: bool = True,
    ) -> list[Edge]:
        self._count("incident_edges")
        edges = await super().incident_edges(
            node_ids,
            direction=direction,
            relations=relations,
            exclude_relations=exclude_relations,
            limit_per_node=limit_per_node,
            provenance=provenance,
        )
        self.reads.edges += len(edges)
        return edges

    async def edges_between(
        self,
        pairs: Sequence[tuple[UUID, UUID]],
        *,
        exclude_relations: Sequence[str] = (),
        provenance: bool = True,
    ) -> list[Edge]:
        self._count("edges_between")
        edges = await super().edges_between(
            pairs, exclude_relations=exclude_relations, provenance=provenance
        )
        self.reads.edges += len(edges)
        return edges

    async def list_nodes(
        self, dataset_ids: Sequence[UUID], *, type: str | None = None, limit: int = 1000
    ) -> list[Node]:
        self._count("list_nodes")
        return await super().list_nodes(dataset_ids, type=type, limit=limit)

    async def list_edges(self, dataset_ids: Sequence[UUID], *, limit: int = 5000) -> list[Edge]:
        self._count("list_edges")
        return await super().list_edges(dataset_ids, limit=limit)

    async def vector_search(
        self, collection: str, query: FloatArray, dataset_ids: Sequence[UUID], top_k: int
    ) -> list[ScoredId]:
        self._count("vector_search")
        self.reads.vector_top_k.append(top_k)
        return await super().vector_search(collection, query, dataset_ids, top_k)


async def counting_store() -> CountingStore:
    engine = get_engine()
    assert isinstance(engine.store, SqliteStore)
    store = CountingStore(engine.store.path)
    await store.setup()
    return store
