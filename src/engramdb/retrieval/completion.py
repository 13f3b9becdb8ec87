"""Completion answers shared by every completion search type.

A completion retriever builds a :class:`BuiltContext` (the rendered context plus the evidence it
placed there) and calls :func:`complete`, which handles the rest uniformly:

* ``only_context=True`` → one item whose ``text`` is the exact user prompt and whose
  ``system_prompt`` is the task template; no LLM call (works without an LLM). A query that
  retrieved nothing returns ``[]``.
* no LLM configured → :class:`LLMNotConfiguredError` naming how to configure one.
* ``response_model`` → validated structured output in ``.structured`` (and JSON in ``.text``).
* ``include_references=True`` → a deterministic ``Evidence:`` block appended to the answer,
  and ``metadata["evidence"]`` for the types whose table row says so (RAG and graph family).
* a recall with a ``session_id`` → the session's conversation so far (``opts.history``) leads
  the user prompt, also in the ``only_context`` prompt.
* personalization → the user's stated preferences (newest first) join the guidance block of
  graph, hybrid and RAG completion prompts.
* conflicts found by improve()'s review → graph-completion and hybrid prompts get a
  ``## Fact conflicts`` block (each fact labelled current / superseded / conflicting) for the
  conflicts their context mentions.
* a global context index (built by improve()) → graph-completion and hybrid prompts get a
  "Dataset overview" after the context: the dataset root and the buckets of the documents the
  context cites. Reading it is fail-open: a missing or unreadable index adds nothing. With
  ``retriever_specific_config={"include_global_context_index": True}`` (the reference's option)
  it is the reference's prelude instead, leading the context itself (so ``raw["context"]`` holds
  it too): ``World summary:`` (the root) and ``Relevant areas:`` (up to
  ``global_context_index_top_k`` buckets, default 3); ``False`` shows no index.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

from engramdb.artifacts.conflicts import load_conflicts, relevant_conflicts, render_conflicts
from engramdb.artifacts.global_index import load_overview_parts
from engramdb.errors import LLMNotConfiguredError
from engramdb.models.results import USED_CONTEXT_KEY, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.retrieval.base import RecallOptions, RetrievalContext
from engramdb.spelling import option

#: The two ways out of a missing LLM, named for every surface (see engramdb.spelling).
_NO_LLM_TERMS = (option("only_context"), option("query_type", "CHUNKS", python="SearchType.CHUNKS"))

__all__ = [
    "DEFAULT_SYSTEM_PROMPTS",
    "BuiltContext",
    "EvidenceItem",
    "complete",
    "evidence_block",
    "render_user_prompt",
]

_BASE_SYSTEM = (
    "You answer questions from a memory of stored documents and knowledge-graph facts. Use only "
    "the context given. If the context does not contain the answer, say that the memory does not "
    "contain it. Answer briefly and precisely."
)

#: The task template per completion type (the ``system_prompt`` an only_context call reports).
DEFAULT_SYSTEM_PROMPTS: dict[SearchType, str] = {
    SearchType.RAG_COMPLETION: _BASE_SYSTEM + " The context is a list of document passages.",
    SearchType.TRIPLET_COMPLETION: _BASE_SYSTEM
    + " The context is a list of facts written as subject —relation→ object.",
    SearchType.GRAPH_COMPLETION: _BASE_SYSTEM
    + " The context lists knowledge-graph facts (subject —relation→ object) and the passages "
    "they come from.",
    SearchType.GRAPH_COMPLETION_COT: _BASE_SYSTEM
    + " Reason step by step over the facts, then give the final answer on the last line.",
    SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION: _BASE_SYSTEM
    + " The context was extended with facts around the first ones found.",
    SearchType.GRAPH_COMPLETION_DECOMPOSITION: _BASE_SYSTEM
    + " The question was split into sub-questions; the context holds facts for each.",
    SearchType.GRAPH_SUMMARY_COMPLETION: _BASE_SYSTEM
    + " The context holds summaries of the passages the facts come from.",
    SearchType.HYBRID_COMPLETION: _BASE_SYSTEM
    + " The context holds passages and knowledge-graph facts, most relevant first.",
    SearchType.TEMPORAL: _BASE_SYSTEM
    + " The context holds dated passages and facts; mind the dates when you answer.",
    SearchType.AGENTIC_COMPLETION: _BASE_SYSTEM,
}

_USER_TEMPLATE = "Question: {question}\n\nContext:\n{context}"

logger = logging.getLogger(__name__)

_GRAPH_AND_HYBRID = frozenset(
    {
        SearchType.GRAPH_COMPLETION,
        SearchType.GRAPH_COMPLETION_COT,
        SearchType.GRAPH_COMPLETION_CONTEXT_EXTENSION,
        SearchType.GRAPH_COMPLETION_DECOMPOSITION,
        SearchType.GRAPH_SUMMARY_COMPLETION,
        SearchType.HYBRID_COMPLETION,
    }
)
#: Completion types whose prompts carry the user's stated preferences.
PREFERENCE_TYPES = _GRAPH_AND_HYBRID | {SearchType.RAG_COMPLETION}
#: Completion types whose prompts carry the global context index.
OVERVIEW_TYPES = _GRAPH_AND_HYBRID
#: Document buckets of the index shown in one prompt.
_OVERVIEW_BUCKETS = 3


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One artifact placed in the LLM context (the seed's ``metadata.evidence`` entry)."""

    kind: Literal["segment", "graph_node", "graph_edge"]
    artifact_id: str
    rank: int
    role: Literal["used_as_context", "supports_assertion"] = "used_as_context"
    score: float | None = None
    data_id: str | None = None
    chunk_id: str | None = None
    chunk_index: int | None = None
    document_name: str | None = None
    #: A short quote shown in the Evidence block (RAG bullets carry one, graph bullets do not).
    snippet: str | None = None

    def as_metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "artifact_id": self.artifact_id,
            "role": self.role,
            "rank": self.rank,
            "score": self.score,
        }
        for key in ("data_id", "chunk_id", "chunk_index", "document_name"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True, slots=True)
class BuiltContext:
    """What a completion retriever retrieved, rendered for the prompt."""

    text: str
    evidence: list[EvidenceItem] = field(default_factory=list)
    #: True for RAG_COMPLETION and the graph family: their answers carry metadata.evidence.
    evidence_in_metadata: bool = False
    #: Extra normalized payload for ``result.raw`` (e.g. the triplets used).
    raw: dict[str, Any] = field(default_factory=dict)
    #: Conversation history and session guidance (issue 5) framed around the question.
    history: str = ""
    guidance: str = ""
    #: The global context index's view of the dataset (improve()), shown after the context.
    overview: str = ""
    #: The ``## Fact conflicts`` block of the conflicts the context mentions (improve()).
    conflicts: str = ""


def render_user_prompt(question: str, built: BuiltContext) -> str:
    """History, then question and context through the template, then the dataset overview and
    the guidance block."""
    parts = []
    if built.history:
        parts.append(f"Conversation so far:\n{built.history}")
    parts.append(_USER_TEMPLATE.format(question=question, context=built.text))
    if built.conflicts:
        parts.append(built.conflicts)
    if built.overview:
        parts.append(f"Dataset overview:\n{built.overview}")
    if built.guidance:
        parts.append(f"Guidance:\n{built.guidance}")
    return "\n\n".join(parts)


def evidence_block(evidence: list[EvidenceItem]) -> str:
    """The deterministic ``Evidence:`` block, or "" when no usable reference exists."""
    lines = []
    seen: set[str] = set()
    for item in evidence:
        if item.kind != "segment" or item.chunk_id is None or item.chunk_id in seen:
            continue
        seen.add(item.chunk_id)
        line = (
            f"- chunk {item.chunk_index} of document {item.document_name} "
            f"(data_id: {item.data_id}, chunk_id: {item.chunk_id})"
        )
        if item.snippet:
            snippet = " ".join(item.snippet.split())
            line += f': "{snippet[:160]}{"…" if len(snippet) > 160 else ""}"'
        lines.append(line)
    return "Evidence:\n" + "\n".join(lines) if lines else ""


async def complete(
    ctx: RetrievalContext, opts: RecallOptions, built: BuiltContext
) -> list[ResponseGraphEntry]:
    """The answer (or, with only_context, the prompt) for a completion search type."""
    search_type = opts.search_type
    system = opts.system_prompt or DEFAULT_SYSTEM_PROMPTS.get(search_type, _BASE_SYSTEM)
    if opts.history and not built.history:
        built = dataclasses.replace(built, history=opts.history)
    if not built.text.strip():
        if opts.only_context:
            return []
        built = BuiltContext(text="(no relevant memories found)", history=built.history)
    built = await _enrich(ctx, opts, built)
    user_prompt = render_user_prompt(opts.query, built)
    dataset_id = ctx.datasets[0].id if len(ctx.datasets) == 1 else None
    dataset_name = ctx.datasets[0].name if len(ctx.datasets) == 1 else None
    if opts.only_context:
        return [
            ResponseGraphEntry(
                text=user_prompt,
                kind="prompt",
                search_type=search_type.value,
                dataset_id=dataset_id,
                dataset_name=dataset_name,
                raw={"context": built.text, **built.raw},
                system_prompt=system,
            )
        ]
    if ctx.llm is None:
        raise LLMNotConfiguredError.needed_for(
            f"{search_type.value} writes its answer with an LLM",
            "pass {0} to get the prompt",
            "use {1}",
            terms=_NO_LLM_TERMS,
        )
    messages: list[Any] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user_prompt},
    ]
    structured: dict[str, Any] | None = None
    if opts.response_model is not None:
        parsed, _ = await ctx.llm.structured(messages, opts.response_model)
        structured = parsed.model_dump(mode="json")
        text = json.dumps(structured, ensure_ascii=False)
    else:
        text = (await ctx.llm.complete(messages)).text.strip()
    metadata: dict[str, Any] = {}
    if opts.include_references:
        block = evidence_block(built.evidence)
        if block:
            text = f"{text}\n\n{block}"
        if built.evidence_in_metadata and built.evidence:
            metadata["evidence"] = [e.as_metadata() for e in built.evidence]
    return [
        ResponseGraphEntry(
            text=text,
            kind="answer",
            search_type=search_type.value,
            dataset_id=dataset_id,
            dataset_name=dataset_name,
            metadata=metadata,
            raw={"context": built.text, **built.raw},
            structured=structured,
        )
    ]


async def _enrich(ctx: RetrievalContext, opts: RecallOptions, built: BuiltContext) -> BuiltContext:
    """Add the session's guidance, the user's stated preferences and the dataset overview where
    they belong. An answer whose prompt showed session guidance names its entries in
    ``raw["used_session_context_ids"]`` (recorded on the session's Q&A entry)."""
    if opts.session_guidance and USED_CONTEXT_KEY not in built.raw:
        guidance = f"{opts.session_guidance}\n\n{built.guidance}" if built.guidance else ""
        ids = [str(i) for i in opts.session_guidance_ids]
        built = dataclasses.replace(
            built,
            guidance=guidance or opts.session_guidance,
            raw={**built.raw, USED_CONTEXT_KEY: ids},
        )
    prefs = opts.preferences
    if prefs is not None and prefs.text and opts.search_type in PREFERENCE_TYPES:
        stated = f"The user stated these preferences (newest first):\n{prefs.text}"
        guidance = f"{built.guidance}\n\n{stated}" if built.guidance else stated
        built = dataclasses.replace(built, guidance=guidance)
    # the index is not node-set aware: a node_name-restricted context gets no overview
    include = opts.include_global_context_index
    if opts.search_type in OVERVIEW_TYPES and include is not False and not opts.node_name:
        if include:
            prelude = await _overview(ctx, built, prelude=opts.global_context_index_top_k)
            if prelude:
                built = dataclasses.replace(built, text=f"{prelude}\n\n{built.text}")
        elif include is None and not built.overview:
            overview = await _overview(ctx, built)
            if overview:
                built = dataclasses.replace(built, overview=overview)
    if opts.search_type in OVERVIEW_TYPES and not built.conflicts:
        block = await _conflicts(ctx, built)
        if block:
            built = dataclasses.replace(built, conflicts=block)
    return built


async def _conflicts(ctx: RetrievalContext, built: BuiltContext) -> str:
    try:
        found = await load_conflicts(ctx.store, ctx.dataset_ids)
    except Exception as exc:  # fail-open by contract: the block only adds context (logged)
        logger.warning("could not read fact conflicts: %s", exc)
        return ""
    return render_conflicts(relevant_conflicts(found, built.text))


async def _overview(ctx: RetrievalContext, built: BuiltContext, prelude: int | None = None) -> str:
    """The "Dataset overview" block, or with ``prelude`` (its bucket count) the reference's
    ``World summary:`` / ``Relevant areas:`` prelude."""
    cited: list[UUID] = []
    for item in built.evidence:
        if item.data_id is not None:
            try:
                cited.append(UUID(item.data_id))
            except ValueError:
                continue
    roots: list[str] = []
    buckets: list[str] = []
    parts = []
    for dataset in ctx.datasets[:3]:
        wanted = _OVERVIEW_BUCKETS if prelude is None else prelude
        try:
            root, found = await load_overview_parts(
                ctx.store, dataset.id, cited, max_buckets=wanted
            )
        except Exception as exc:  # fail-open by contract: the index only adds context (logged)
            logger.warning("could not read the global context index: %s", exc)
            continue
        roots.extend([root] if root else [])
        buckets.extend(found)
        parts.append("\n\n".join([root, *found] if root else found))
    if prelude is None:
        return "\n\n".join(p for p in parts if p)
    blocks = ["World summary:\n" + "\n\n".join(roots)] if roots else []
    if buckets[:prelude]:
        blocks.append("Relevant areas:\n" + "\n\n".join(buckets[:prelude]))
    return "\n\n".join(blocks)
