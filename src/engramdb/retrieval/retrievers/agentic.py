"""AGENTIC_COMPLETION: the LLM decides what to search (or which skill to load), then answers.

Each turn the model replies through ``llm.structured`` with one JSON action::

    {"action": "search_chunks", "query": "..."}   # passages nearest to the query (CHUNKS)
    {"action": "search_graph",  "query": "..."}   # graph facts around BM25-matching passages
    {"action": "load_skill",    "skill": "..."}   # the procedure of one of the offered skills
    {"action": "answer",        "answer": "..."}  # the final answer

``retriever_specific_config["skills"]`` (skill names, the reference's option) offers those
skills of the searched datasets: the prompt lists their names and descriptions, and the model
loads a procedure only when it wants it (names that match no skill are left out, with a
warning). A tool's observation goes back to the model as the next user message. The loop is
bounded: at most :data:`MAX_TOOL_STEPS` tool calls by default; ``retriever_specific_config
["max_steps"]`` (or the reference's ``"max_iter"``) sets another budget, up to
:data:`MAX_TOOL_STEPS_LIMIT`. When the budget is spent, or the model's output cannot be
parsed, or a ``response_model`` was asked for, the final answer is written by :func:`complete`
from everything gathered. Every step is recorded in ``raw["steps"]``, the skills loaded in
``raw["skills_loaded"]``. The tools call the CHUNKS search and the store's own
lexical search and neighbourhood walk -- never another search type's retriever -- so this type
only depends on the storage contract.

``only_context=True`` makes no LLM call, so no agent can run: it returns the bare context of one
chunk search for the question (system_prompt unset, recall.md). Without an LLM and without
``only_context`` it raises :class:`LLMNotConfiguredError`.
"""

from __future__ import annotations

import logging
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel

from engramdb.artifacts.skills import find_skill
from engramdb.errors import EngramValidationError, LLMNotConfiguredError, LLMOutputError
from engramdb.graph_schema import CHUNK_COLLECTION
from engramdb.models.records import NodeType
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType
from engramdb.models.skills import Skill
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

__all__ = ["MAX_TOOL_STEPS", "MAX_TOOL_STEPS_LIMIT", "AgentAction", "AgenticRetriever"]

logger = logging.getLogger(__name__)

#: Tool calls per answer by default, and the most a ``max_steps`` / ``max_iter`` may ask for.
MAX_TOOL_STEPS = 3
MAX_TOOL_STEPS_LIMIT = 10
#: The characters of a loaded skill procedure the model sees (the reference's tool-output cap).
_SKILL_CHARS = 8_000
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
    "{skills}You may call tools at most {steps} times. Answer only from what the tools returned."
)
_SKILL_PROTOCOL = (
    '- {{"action": "load_skill", "skill": "..."}} loads the instructions of one of these '
    "skills (then follow them):\n{catalog}\n"
)


class AgentAction(BaseModel):
    """One turn of the agent: a tool call or the final answer."""

    action: Literal["search_chunks", "search_graph", "load_skill", "answer"]
    query: str | None = None
    skill: str | None = None
    answer: str | None = None


class AgenticRetriever(Retriever):
    """SearchType.AGENTIC_COMPLETION (see the module docstring)."""

    search_types = frozenset({SearchType.AGENTIC_COMPLETION})
    supports_node_name = True

    async def retrieve(self, ctx: RetrievalContext, opts: RecallOptions) -> list[RecallResponse]:
        config = opts.retriever_specific_config
        tool_top_k = _bounded(config.get("tool_top_k"), TOOL_TOP_K, TOOL_TOP_K, "tool_top_k")
        top_k = min(opts.top_k, tool_top_k)
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
        key = "max_steps" if "max_steps" in config else "max_iter"
        steps = _bounded(config.get(key), MAX_TOOL_STEPS, MAX_TOOL_STEPS_LIMIT, key)
        skills = await _offered_skills(ctx, config.get("skills"))
        return list(await _Agent(ctx, opts, ctx.llm, steps, top_k, skills).run())


def _bounded(value: object, default: int, ceiling: int, name: str) -> int:
    """``retriever_specific_config[name]``: ``default`` when unset, at most ``ceiling``."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise EngramValidationError(
            f"retriever_specific_config[{name!r}] must be a positive integer"
        )
    return min(value, ceiling)


async def _offered_skills(ctx: RetrievalContext, names: object) -> dict[str, Skill]:
    """The skills ``retriever_specific_config["skills"]`` names, by name, from the searched
    datasets (the first dataset holding a name wins)."""
    if names is None:
        return {}
    wanted = [names] if isinstance(names, str) else names
    if not isinstance(wanted, list | tuple) or not all(isinstance(n, str) for n in wanted):
        raise EngramValidationError(
            "retriever_specific_config['skills'] must be a list of skill names"
        )
    found: dict[str, Skill] = {}
    for name in wanted:
        for dataset in ctx.datasets:
            skill = await find_skill(ctx.store, dataset, name)
            if skill is not None:
                found.setdefault(skill.name, skill)
                break
        else:
            logger.warning("AGENTIC_COMPLETION: no skill named %r in the searched datasets", name)
    return found


class _Agent:
    def __init__(
        self,
        ctx: RetrievalContext,
        opts: RecallOptions,
        llm: LLM,
        max_steps: int,
        top_k: int,
        skills: dict[str, Skill],
    ) -> None:
        self.ctx, self.opts, self.llm = ctx, opts, llm
        self.max_steps, self.top_k = max_steps, top_k
        self.skills = skills
        self.skills_loaded: list[str] = []
        self.steps: list[dict[str, Any]] = []
        self.observations: list[str] = []
        self.evidence: list[EvidenceItem] = []
        self.seen_chunks: set[str] = set()
        self.seen_edges: set[str] = set()
        #: recall's node_name: both tools search only chunks of those node sets
        self.node_filter = node_set_filter(opts)

    async def run(self) -> list[ResponseGraphEntry]:
        base = self.opts.system_prompt or DEFAULT_SYSTEM_PROMPTS[SearchType.AGENTIC_COMPLETION]
        catalog = "\n".join(f"  - `{s.name}`: {s.description}" for s in self.skills.values())
        offered = _SKILL_PROTOCOL.format(catalog=catalog) if self.skills else ""
        protocol = _PROTOCOL.format(steps=self.max_steps, skills=offered)
        messages: list[ChatMessage] = [
            {"role": "system", "content": f"{base}\n\n{protocol}"},
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
            skill = action.action == "load_skill"
            query = ((action.skill if skill else action.query) or "").strip() or self.opts.query
            observation, count = await self.tool(action.action, query)
            searches += 1
            self.steps.append(
                {
                    "step": len(self.steps) + 1,
                    "action": action.action,
                    "skill" if skill else "query": query,
                    "results": count,
                }
            )
            left = self.max_steps - searches
            follow = (
                f"{left} tool call(s) left. Reply with the next JSON action."
                if left
                else 'No tool calls left: reply now with {"action": "answer", "answer": "..."}.'
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
                raw={"steps": self.steps, "skills_loaded": self.skills_loaded},
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
            raw={"context": context, "steps": self.steps, "skills_loaded": self.skills_loaded},
        )

    # --- tools -------------------------------------------------------------------------------

    async def tool(self, action: str, query: str) -> tuple[str, int]:
        """The observation text of one tool call and how many results it had."""
        if action == "search_chunks":
            lines, count = await self.search_chunks(query)
        elif action == "load_skill":
            lines, count = self.load_skill(query)
        else:
            lines, count = await self.search_graph(query)
        observation = "\n".join(lines) if lines else "(nothing found)"
        self.observations.append(f"{action}({query!r}):\n{observation}")
        return observation, count

    def load_skill(self, name: str) -> tuple[list[str], int]:
        """The procedure of an offered skill (1 result), or why there is none (0)."""
        skill = self.skills.get(name) or next(
            (s for s in self.skills.values() if s.name.lower() == name.lower()), None
        )
        if skill is None:
            offered = ", ".join(self.skills) or "none"
            return [f"No skill named {name!r} is offered (offered: {offered})."], 0
        if skill.name not in self.skills_loaded:
            self.skills_loaded.append(skill.name)
        procedure = skill.procedure.strip()
        if len(procedure) > _SKILL_CHARS:
            procedure = procedure[:_SKILL_CHARS] + "\n... [truncated]"
        return [procedure], 1

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
