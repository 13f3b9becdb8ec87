"""AGENTIC_COMPLETION: the LLM decides what to search, up to three times, then answers.

Each turn the model replies through ``llm.structured`` with one JSON action::

    {"action": "search_chunks", "query": "..."}   # passages nearest to the query (CHUNKS)
    {"action": "search_graph",  "query": "..."}   # graph facts around BM25-matching passages
    {"action": "answer",        "answer": "..."}  # the final answer

A tool's observation goes back to the model as the next user message. The loop is bounded:
at most :data:`MAX_TOOL_STEPS` searches (``retriever_specific_config["max_steps"]`` may lower
it); when the budget is spent, or the model's output cannot be parsed, or a ``response_model``
was asked for, the final answer is written by :func:`complete` from everything gathered. Every
step is recorded in ``raw["steps"]``. The tools call the CHUNKS search and the store's own
lexical search and neighbourhood walk -- never another search type's retriever -- so this type
only depends on the storage contract.

``only_context=True`` makes no LLM call, so no agent can run: it returns the bare context of one
chunk search for the question (system_prompt unset, recall.md). Without an LLM and without
``only_context`` it raises :class:`LLMNotConfiguredError`.
"""

from __future__ import annotations

from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel

from engramdb.errors import EngramValidationError, LLMNotConfiguredError, LLMOutputError
from engramdb.graph_schema import CHUNK_COLLECTION
from engramdb.models.records import NodeType
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.providers.llm.base import LLM, ChatMessage
from engramdb.retrieval.base import RecallOptions, RetrievalContext, Retriever
from engramdb.retrieval.completion import (
    DEFAULT_SYSTEM_PROMPTS,
    BuiltContext,
    EvidenceItem,
    complete,
    evidence_block,
)
from engramdb.retrieval.retrievers.chunks import (
    node_set_filter,
    search_chunks,
    search_chunks_lexical,
)
from engramdb.spelling import option

#: The two ways out of a missing LLM, named for every surface (see engramdb.spelling).
_NO_LLM_TERMS = (option("only_context"), option("query_type", "CHUNKS", python="SearchType.CHUNKS"))

__all__ = ["MAX_TOOL_STEPS", "AgentAction", "AgenticRetriever"]

MAX_TOOL_STEPS = 3
#: Results per tool call (``retriever_specific_config["tool_top_k"]`` may lower it).
TOOL_TOP_K = 5
_OBSERVATION_CHARS = 800
#: Edges that describe the document structure rather than facts about the world.
_STRUCTURAL = frozenset({"contains", "is_a", "is_part_of", "summarizes"})

_PROTOCOL = (
    "You can search the memory before answering. Reply with exactly one JSON object per turn:\n"
    '- {{"action": "search_chunks", "query": "..."}} finds document passages similar to query;\n'
    '- {{"action": "search_graph", "query": "..."}} finds knowledge-graph facts '
    "(subject —relation→ object) about the words in query;\n"
    '- {{"action": "answer", "answer": "..."}} gives your final answer.\n'
    "You may search at most {steps} times. Answer only from what the searches returned."
)


class AgentAction(BaseModel):
    """One turn of the agent: a tool call or the final answer."""

    action: Literal["search_chunks", "search_graph", "answer"]
    query: str | None = None
    answer: str | None = None


class AgenticRetriever(Retriever):
    """SearchType.AGENTIC_COMPLETION (see the module docstring)."""

    search_types = frozenset({SearchType.AGENTIC_COMPLETION})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        config = opts.retriever_specific_config
        top_k = min(opts.top_k, _bounded(config.get("tool_top_k"), TOOL_TOP_K, "tool_top_k"))
        if opts.only_context:
            found = await search_chunks(
                ctx.store, ctx.embedder, ctx.datasets, opts.query, top_k, node_set_filter(opts)
            )
            kind = SearchType.AGENTIC_COMPLETION.value
            return [e.model_copy(update={"search_type": kind}) for e in found]
        if ctx.llm is None:
            raise LLMNotConfiguredError.needed_for(
                "AGENTIC_COMPLETION lets an LLM plan its searches",
                "pass {0} to get the retrieved context",
                "use {1}",
                terms=_NO_LLM_TERMS,
            )
        steps = _bounded(config.get("max_steps"), MAX_TOOL_STEPS, "max_steps")
        return list(await _Agent(ctx, opts, ctx.llm, steps, top_k).run())


def _bounded(value: object, ceiling: int, name: str) -> int:
    if value is None:
        return ceiling
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EngramValidationError(
            f"retriever_specific_config[{name!r}] must be a positive integer"
        )
    return min(value, ceiling)


class _Agent:
    def __init__(
        self, ctx: RetrievalContext, opts: RecallOptions, llm: LLM, max_steps: int, top_k: int
    ) -> None:
        self.ctx, self.opts, self.llm = ctx, opts, llm
        self.max_steps, self.top_k = max_steps, top_k
        self.steps: list[dict[str, Any]] = []
        self.observations: list[str] = []
        self.evidence: list[EvidenceItem] = []
        self.seen_chunks: set[str] = set()
        self.seen_edges: set[str] = set()
        #: recall's node_name: both tools search only chunks of those node sets
        self.node_filter = node_set_filter(opts)

    async def run(self) -> list[ResponseGraphEntry]:
        base = self.opts.system_prompt or DEFAULT_SYSTEM_PROMPTS[SearchType.AGENTIC_COMPLETION]
        messages: list[ChatMessage] = [
            {"role": "system", "content": f"{base}\n\n{_PROTOCOL.format(steps=self.max_steps)}"},
            {"role": "user", "content": f"Question: {self.opts.query}"},
        ]
        answer: str | None = None
        searches = 0
        while searches <= self.max_steps:
            try:
                action, _ = await self.llm.structured(messages, AgentAction, cache=False)
            except LLMOutputError as exc:
                self.steps.append(
                    {"step": len(self.steps) + 1, "action": "invalid", "error": str(exc)}
                )
                break
            if action.action == "answer":
                answer = (action.answer or "").strip() or None
                self.steps.append({"step": len(self.steps) + 1, "action": "answer"})
                break
            if searches == self.max_steps:  # a search past the budget: write the answer below
                self.steps.append(
                    {"step": len(self.steps) + 1, "action": action.action, "refused": True}
                )
                break
            query = (action.query or "").strip() or self.opts.query
            observation, count = await self.tool(action.action, query)
            searches += 1
            self.steps.append(
                {
                    "step": len(self.steps) + 1,
                    "action": action.action,
                    "query": query,
                    "results": count,
                }
            )
            left = self.max_steps - searches
            follow = (
                f"{left} search(es) left. Reply with the next JSON action."
                if left
                else 'No searches left: reply now with {"action": "answer", "answer": "..."}.'
            )
            messages.append({"role": "assistant", "content": action.model_dump_json()})
            messages.append(
                {
                    "role": "user",
                    "content": f"Result of {action.action}({query!r}):\n{observation}\n\n{follow}",
                }
            )
        context = "\n\n".join(self.observations)
        if answer is None or self.opts.response_model is not None:
            built = BuiltContext(
                text=context,
                evidence=self.evidence,
                evidence_in_metadata=True,
                raw={"steps": self.steps},
            )
            return await complete(self.ctx, self.opts, built)
        return [self.entry(answer, context)]

    def entry(self, answer: str, context: str) -> ResponseGraphEntry:
        metadata: dict[str, Any] = {}
        if self.opts.include_references:
            block = evidence_block(self.evidence)
            if block:
                answer = f"{answer}\n\n{block}"
            if self.evidence:
                metadata["evidence"] = [e.as_metadata() for e in self.evidence]
        single = self.ctx.datasets[0] if len(self.ctx.datasets) == 1 else None
        return ResponseGraphEntry(
            text=answer,
            kind="answer",
            search_type=SearchType.AGENTIC_COMPLETION.value,
            dataset_id=single.id if single else None,
            dataset_name=single.name if single else None,
            metadata=metadata,
            raw={"context": context, "steps": self.steps},
        )

    # --- tools -------------------------------------------------------------------------------

    async def tool(self, action: str, query: str) -> tuple[str, int]:
        """The observation text of one tool call and how many results it had."""
        if action == "search_chunks":
            lines, count = await self.search_chunks(query)
        else:
            lines, count = await self.search_graph(query)
        observation = "\n".join(lines) if lines else "(nothing found)"
        self.observations.append(f"{action}({query!r}):\n{observation}")
        return observation, count

    async def search_chunks(self, query: str) -> tuple[list[str], int]:
        ctx = self.ctx
        found = await search_chunks(
            ctx.store, ctx.embedder, ctx.datasets, query, self.top_k, self.node_filter
        )
        lines = []
        for i, entry in enumerate(found, 1):
            meta = entry.metadata
            where = f"chunk {meta.get('chunk_index')} of {meta.get('document_name')}"
            lines.append(f"[{i}] ({where}) {_clip(entry.text)}")
            chunk_id = str(meta.get("chunk_id"))
            if chunk_id not in self.seen_chunks:
                self.seen_chunks.add(chunk_id)
                self.evidence.append(
                    EvidenceItem(
                        kind="segment",
                        artifact_id=chunk_id,
                        rank=len(self.evidence),
                        score=entry.score,
                        data_id=meta.get("data_id"),
                        chunk_id=chunk_id,
                        chunk_index=meta.get("chunk_index"),
                        document_name=meta.get("document_name"),
                        snippet=entry.text,
                    )
                )
        return lines, len(found)

    async def search_graph(self, query: str) -> tuple[list[str], int]:
        """Facts between the entities of the passages that best match ``query`` by BM25."""
        store, ids = self.ctx.store, self.ctx.dataset_ids
        if self.node_filter is None:
            found = await store.lexical_search(CHUNK_COLLECTION, query, ids, self.top_k)
            hits = [h.node_id for h in found]
        else:
            entries = await search_chunks_lexical(
                store, self.ctx.datasets, query, self.top_k, self.node_filter
            )
            hits = [UUID(str(e.metadata["chunk_id"])) for e in entries]
        if not hits:
            return [], 0
        graph = await store.neighbourhood(hits, depth=1, limit=300)
        allowed = set(ids)
        nodes = {n.id: n for n in graph.nodes if n.dataset_id in allowed}
        lines: list[str] = []
        for edge in graph.edges:
            source, target = nodes.get(edge.source_id), nodes.get(edge.target_id)
            if source is None or target is None or edge.relation in _STRUCTURAL:
                continue
            if source.type != NodeType.ENTITY or target.type != NodeType.ENTITY:
                continue
            lines.append(f"{source.name} —{edge.relation}→ {target.name}")
            if str(edge.id) not in self.seen_edges:
                self.seen_edges.add(str(edge.id))
                self.evidence.append(
                    EvidenceItem(
                        kind="graph_edge", artifact_id=str(edge.id), rank=len(self.evidence)
                    )
                )
        if not lines:
            entities = sorted({n.name for n in nodes.values() if n.type == NodeType.ENTITY})
            if entities:
                lines.append("Entities mentioned: " + ", ".join(entities))
        return list(dict.fromkeys(lines)), len(lines)


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _OBSERVATION_CHARS else flat[: _OBSERVATION_CHARS - 1] + "…"
