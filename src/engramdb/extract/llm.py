"""Graph extraction with an LLM: entities, relations and a summary per chunk, batched.

Cost model: consecutive chunks are grouped into batches of at most ``batch_chars`` characters and
``max_batch`` chunks, and each batch is ONE structured-output call that returns, for every chunk,
its entities, relations and summary. The reference system spends two calls per chunk; with
256-token chunks and the defaults a batch holds up to ~7 chunks. Batches run concurrently,
bounded by the LLM's own semaphore. :meth:`LLMExtractor.extract_documents` batches across
documents too, so many one-chunk documents do not cost one call each.

The model's answer is untrusted and is bounded before use, never trusted to be well-formed:
names are whitespace-collapsed and capped at :data:`MAX_NAME_CHARS`, empty names dropped,
entities deduplicated case-insensitively and capped at ``max_entities`` per chunk, relations
capped at ``max_relations``, relation names snake_cased and types upper-cased.

Relations whose source or target is not an entity of the same chunk are DROPPED rather than
completed with an invented CONCEPT entity: the prompt requires endpoints to be listed entities, so
an unlisted endpoint is either a spelling variant (which would duplicate a node) or a
hallucination; dropping keeps the graph precise at the cost of an occasional lost fact.

Failures: an answer that stays invalid after the LLM's repair round (:class:`LLMOutputError`), or
that lacks some chunk ids, sends those chunks to the ``fallback`` extractor (counted in
``Usage.fallbacks``). Provider failures -- 402, bad key, unreachable after retries -- propagate:
the run is recorded as errored and the user fixes the cause.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
from collections.abc import Awaitable, Sequence
from dataclasses import replace
from typing import Any, TypeVar
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engramdb.errors import ConfigurationError, LLMOutputError
from engramdb.extract.prompts import build_messages
from engramdb.extract.types import (
    ChunkExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Extractor,
    Usage,
)
from engramdb.providers.llm.base import LLM, CallStats

__all__ = ["MAX_NAME_CHARS", "BatchAnswer", "LLMExtractor"]

logger = logging.getLogger(__name__)

#: Longest entity name kept (longer ones are cut): names are graph keys, not prose.
MAX_NAME_CHARS = 200
_MAX_TYPE_CHARS = 40
_MAX_RELATION_CHARS = 64
_MAX_DESCRIPTION_CHARS = 500
_MAX_SUMMARY_CHARS = 1200
#: An extractive stand-in when the model gives a chunk no summary.
_STANDIN_SUMMARY_CHARS = 300

#: Common labels of other NER schemes mapped to ours.
_TYPE_ALIASES = {
    "ORG": "ORGANIZATION",
    "ORGANISATION": "ORGANIZATION",
    "COMPANY": "ORGANIZATION",
    "PER": "PERSON",
    "PEOPLE": "PERSON",
    "LOCATION": "PLACE",
    "LOC": "PLACE",
    "GPE": "PLACE",
    "FAC": "PLACE",
    "FACILITY": "PLACE",
    "CARDINAL": "NUMBER",
    "QUANTITY": "NUMBER",
    "PERCENT": "NUMBER",
    "WORK_OF_ART": "WORK",
}

_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[\W_]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")

R = TypeVar("R")


# ----------------------------------------------------------------------------------------------
# The answer schema. Parsing is lenient (None -> "", a bare string -> an entity, [s, r, t] -> a
# relation, junk items skipped) so one sloppy item does not cost a repair round, while the JSON
# Schema shown to the model still lists the required fields.


def _text(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _items(value: Any, *kinds: type) -> Any:
    if value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if isinstance(item, kinds)]
    return value


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class EntityItem(_Lenient):
    model_config = ConfigDict(json_schema_extra={"required": ["name", "type"]})

    name: str = ""
    type: str = Field(default="", description="PERSON, PLACE, ORGANIZATION, ... or UPPER_CASE")
    description: str = ""

    @model_validator(mode="before")
    @classmethod
    def _bare_name(cls, data: Any) -> Any:
        return {"name": data} if isinstance(data, str) else data

    @field_validator("name", "type", "description", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return _text(value)


class RelationItem(_Lenient):
    model_config = ConfigDict(json_schema_extra={"required": ["source", "relation", "target"]})

    source: str = ""
    relation: str = Field(default="", description="snake_case verb phrase, e.g. works_for")
    target: str = ""

    @model_validator(mode="before")
    @classmethod
    def _triple(cls, data: Any) -> Any:
        if isinstance(data, list) and len(data) == 3:
            return dict(zip(("source", "relation", "target"), data, strict=True))
        return data

    @field_validator("source", "relation", "target", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return _text(value)


class ChunkItem(_Lenient):
    model_config = ConfigDict(json_schema_extra={"required": ["id", "summary", "entities"]})

    id: int
    summary: str = ""
    entities: list[EntityItem] = Field(default_factory=list)
    relations: list[RelationItem] = Field(default_factory=list)

    @field_validator("id", mode="before")
    @classmethod
    def _id_digits(cls, value: Any) -> Any:
        if isinstance(value, str) and (digits := re.search(r"\d+", value)):
            return int(digits.group())
        return value

    @field_validator("summary", mode="before")
    @classmethod
    def _summary_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
        return _text(value)

    @field_validator("entities", mode="before")
    @classmethod
    def _entity_items(cls, value: Any) -> Any:
        return _items(value, dict, str)

    @field_validator("relations", mode="before")
    @classmethod
    def _relation_items(cls, value: Any) -> Any:
        return _items(value, dict, list)


class BatchAnswer(_Lenient):
    """What one batch call must return: one item per chunk id."""

    chunks: list[ChunkItem]

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, data: Any) -> Any:
        if isinstance(data, list):
            return {"chunks": data}
        return data

    @field_validator("chunks", mode="before")
    @classmethod
    def _chunk_items(cls, value: Any) -> Any:
        return _items(value, dict)


# ----------------------------------------------------------------------------------------------
# The extractor


class LLMExtractor(Extractor):
    """Extracts with ``llm``, falling back to ``fallback`` for chunks it cannot get an answer for.

    ``batch_chars`` bounds the chunk text of one request (a single longer chunk is sent alone);
    ``max_batch`` bounds the chunks per request. Empty chunks are not sent at all.
    """

    name = "llm"
    #: The caller's own extraction instructions (cognee's ``custom_prompt``), or None.
    instructions: str | None = None

    def __init__(
        self,
        llm: LLM,
        *,
        fallback: Extractor,
        batch_chars: int = 6000,
        max_batch: int = 8,
        max_entities: int | None = None,
        max_relations: int | None = None,
    ) -> None:
        if batch_chars <= 0:
            raise ConfigurationError(f"batch_chars must be > 0, got {batch_chars}")
        if max_batch <= 0:
            raise ConfigurationError(f"max_batch must be > 0, got {max_batch}")
        self._llm = llm
        self._fallback = fallback
        self._batch_chars = batch_chars
        self._max_batch = max_batch
        if max_entities is not None:
            self.max_entities = max_entities
        if max_relations is not None:
            self.max_relations = max_relations
        if self.max_entities <= 0 or self.max_relations < 0:
            raise ConfigurationError("max_entities must be > 0 and max_relations >= 0")

    def with_instructions(self, instructions: str) -> LLMExtractor:
        """This extractor, asking the LLM to follow ``instructions`` on what to extract."""
        steered = copy.copy(self)
        steered.instructions = instructions
        return steered

    async def extract(self, texts: Sequence[str]) -> list[ChunkExtraction]:
        extractions, _ = await self.extract_with_usage(texts)
        return extractions

    async def extract_with_usage(
        self, texts: Sequence[str], *, data_id: UUID | None = None
    ) -> tuple[list[ChunkExtraction], Usage]:
        (extractions,), usage = await self.extract_documents([(data_id, texts)])
        return extractions, usage

    async def extract_documents(
        self, documents: Sequence[tuple[UUID | None, Sequence[str]]]
    ) -> tuple[list[list[ChunkExtraction]], Usage]:
        """Extract the chunks of several documents at once: ``(data_id, chunk texts)`` each.

        Batches may span documents, so many short documents (one chunk each) share calls
        instead of costing one call apiece. A batch holding chunks of one data item is cached
        under that item; a batch mixing items is not cached at all, because one tag could not
        forget it with each of them. Returns one list of extractions per document, in order.
        """
        owners: list[UUID | None] = []
        items: list[str] = []
        for data_id, texts in documents:
            owners.extend([data_id] * len(texts))
            items.extend(texts)
        results: list[ChunkExtraction | None] = [None] * len(items)
        for i, text in enumerate(items):
            if not text.strip():
                results[i] = ChunkExtraction(source=self.name)
        batches = self.plan_batches(items)
        outcomes = await _gather_or_cancel(
            [
                self._run_batch([items[i] for i in batch], {owners[i] for i in batch})
                for batch in batches
            ]
        )
        usage = Usage()
        for batch, (answers, stats) in zip(batches, outcomes, strict=True):
            usage.add(_usage(stats))
            for i, answer in zip(batch, answers, strict=True):
                results[i] = answer

        missing = [i for i, r in enumerate(results) if r is None]
        if missing:
            usage.fallbacks += len(missing)
            recovered = await self._fallback.extract([items[i] for i in missing])
            source = f"{self._fallback.name}-fallback"
            for n, i in enumerate(missing):
                got = recovered[n] if n < len(recovered) else ChunkExtraction()
                results[i] = replace(got, source=source)

        done = [r if r is not None else ChunkExtraction(source=self.name) for r in results]
        grouped: list[list[ChunkExtraction]] = []
        start = 0
        for _, texts in documents:
            grouped.append(done[start : start + len(texts)])
            start += len(texts)
        return grouped, usage

    def plan_batches(self, texts: Sequence[str]) -> list[list[int]]:
        """Indices of the non-empty texts, grouped into consecutive batches (one call each)."""
        batches: list[list[int]] = []
        current: list[int] = []
        size = 0
        for i, text in enumerate(texts):
            if not text.strip():
                continue
            fits = size + len(text) <= self._batch_chars and len(current) < self._max_batch
            if current and not fits:
                batches.append(current)
                current, size = [], 0
            current.append(i)
            size += len(text)
        if current:
            batches.append(current)
        return batches

    async def _run_batch(
        self, texts: list[str], owners: set[UUID | None]
    ) -> tuple[list[ChunkExtraction | None], CallStats]:
        """One call for ``texts`` (chunks of the data items ``owners``); None marks a chunk the
        answer did not cover."""
        messages = build_messages(
            texts,
            max_entities=self.max_entities,
            max_relations=self.max_relations,
            instructions=self.instructions,
        )
        single = len(owners) == 1
        data_id = next(iter(owners)) if single else None
        try:
            answer, stats = await self._llm.structured(
                messages, BatchAnswer, data_id=data_id, cache=single
            )
        except LLMOutputError as exc:
            logger.warning(
                "LLM extraction of %d chunk(s) gave no valid answer; using the fallback "
                "extractor for them (%s)",
                len(texts),
                exc.message,
            )
            return [None] * len(texts), exc.stats if exc.stats is not None else CallStats()
        by_id: dict[int, ChunkItem] = {}
        for item in answer.chunks:
            if 1 <= item.id <= len(texts):
                by_id.setdefault(item.id, item)
        if len(by_id) < len(texts):
            logger.warning(
                "LLM answer covered %d of %d chunks; using the fallback extractor for the rest",
                len(by_id),
                len(texts),
            )
        results: list[ChunkExtraction | None] = [
            self._bounded(by_id[n], text) if n in by_id else None
            for n, text in enumerate(texts, start=1)
        ]
        return results, stats

    def _bounded(self, item: ChunkItem, text: str) -> ChunkExtraction:
        """The answer for one chunk, cleaned and capped (see the module docstring)."""
        entities: list[ExtractedEntity] = []
        canonical: dict[str, int] = {}  # casefolded name -> index in entities
        for raw in item.entities:
            name = _clean(raw.name, MAX_NAME_CHARS)
            if not name:
                continue
            key = name.casefold()
            description = _clean(raw.description, _MAX_DESCRIPTION_CHARS)
            if key in canonical:
                first = entities[canonical[key]]
                if not first.description and description:
                    entities[canonical[key]] = replace(first, description=description)
                continue
            if len(entities) >= self.max_entities:
                continue  # keep scanning: a later duplicate may still add a description
            canonical[key] = len(entities)
            entities.append(ExtractedEntity(name, _entity_type(raw.type), description))

        relations: list[ExtractedRelation] = []
        seen: set[tuple[str, str, str]] = set()
        for raw_relation in item.relations:
            if len(relations) >= self.max_relations:
                break
            source = canonical.get(_clean(raw_relation.source, MAX_NAME_CHARS).casefold())
            target = canonical.get(_clean(raw_relation.target, MAX_NAME_CHARS).casefold())
            relation = _snake(raw_relation.relation)
            if source is None or target is None or source == target or not relation:
                continue
            triple = (entities[source].name, relation, entities[target].name)
            if triple not in seen:
                seen.add(triple)
                relations.append(ExtractedRelation(*triple))

        summary = _clean(item.summary, _MAX_SUMMARY_CHARS) or _standin_summary(text)
        return ChunkExtraction(
            entities=entities, relations=relations, summary=summary, source=self.name
        )


# ----------------------------------------------------------------------------------------------
# helpers


async def _gather_or_cancel(coroutines: Sequence[Awaitable[R]]) -> list[R]:
    """Run concurrently; on the first failure cancel the rest (a 402 should not leave other
    batches spending) and re-raise that failure as it is."""
    tasks = [asyncio.ensure_future(c) for c in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _usage(stats: CallStats) -> Usage:
    return Usage(
        calls=stats.calls,
        prompt_tokens=stats.prompt_tokens,
        completion_tokens=stats.completion_tokens,
        cache_hits=stats.cache_hits,
    )


def _clean(value: str, limit: int) -> str:
    return _WS.sub(" ", value).strip()[:limit].rstrip()


def _entity_type(value: str) -> str:
    label = _NON_WORD.sub("_", _clean(value, 200).upper()).strip("_")[:_MAX_TYPE_CHARS]
    label = label.rstrip("_")
    return _TYPE_ALIASES.get(label, label) or "CONCEPT"


def _snake(value: str) -> str:
    spaced = _CAMEL.sub("_", _clean(value, 200))
    return _NON_WORD.sub("_", spaced.lower()).strip("_")[:_MAX_RELATION_CHARS].rstrip("_")


def _standin_summary(text: str) -> str:
    """The chunk's first sentence(s), up to a few hundred characters: never an empty summary."""
    flat = _clean(text, 10 * _STANDIN_SUMMARY_CHARS)
    if len(flat) <= _STANDIN_SUMMARY_CHARS:
        return flat
    cut = flat[:_STANDIN_SUMMARY_CHARS]
    ends = [m.start() for m in _SENTENCE_END.finditer(cut)]
    return cut[: ends[-1]] if ends else cut.rsplit(" ", 1)[0] + "…"
