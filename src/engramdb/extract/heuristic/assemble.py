"""Turning candidate entities and relations into a bounded :class:`ChunkExtraction`.

Shared by both offline extractors so they apply the same limits and filters: relative dates
("yesterday", "last week") and small counts ("3", "two") are dropped, entities are
de-duplicated by identity key and the mentions of one person grouped into one entity
(:func:`~engramdb.extract.resolve.resolve_chunk`: "Marie Curie", alias "Curie"), at most
``max_entities`` are kept (named entities first, then the most mentioned), relations keep
only endpoints that survived, without self-loops or duplicates, at most ``max_relations``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from engramdb.extract.heuristic.names import is_relative_time, is_small_number, name_key
from engramdb.extract.resolve import resolve_chunk
from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

__all__ = ["EntityDraft", "describe", "finalize"]

#: Lower sorts first when the entity budget is tight.
_PRIORITY = {
    "PERSON": 0,
    "ORGANIZATION": 0,
    "PLACE": 0,
    "EVENT": 1,
    "WORK": 1,
    "PRODUCT": 1,
    "DATE": 2,
    "TIME": 3,
    "MONEY": 2,
    "NUMBER": 3,
    "CONCEPT": 4,
}
_DESCRIPTION_CHARS = 160


@dataclass(slots=True)
class EntityDraft:
    name: str
    type: str
    #: Position of the first mention (orders the output).
    first: int
    count: int = 1
    description: str = ""


def describe(sentence: str) -> str:
    """An entity's description: the sentence of its first mention, whitespace collapsed and
    cut at a word to at most 160 characters."""
    text = " ".join(sentence.split())
    if len(text) <= _DESCRIPTION_CHARS:
        return text
    cut = text[: _DESCRIPTION_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > 80 else cut).rstrip(" ,;:") + "…"


def finalize(
    entities: Iterable[EntityDraft],
    relations: Iterable[tuple[str, str, str]],
    *,
    max_entities: int,
    max_relations: int,
    summary: str,
    source: str,
    speakers: Collection[str] = (),
) -> ChunkExtraction:
    """The bounded extraction. Relation endpoints are entity names (any spelling with the
    same identity key); in the output they are the kept entity's exact name. ``speakers``
    (the chunk's chat speakers) are never grouped into a longer name."""
    merged: dict[str, EntityDraft] = {}
    for e in entities:
        if not e.name.strip() or _noise(e):
            continue
        key = name_key(e.name)
        if not key:
            continue
        cur = merged.get(key)
        if cur is None:
            merged[key] = EntityDraft(e.name, e.type, e.first, e.count, e.description)
        else:
            cur.count += e.count
            if e.first < cur.first:
                cur.first, cur.name, cur.description = e.first, e.name, e.description
    drafts = list(merged.items())
    if len(drafts) > max(0, max_entities):
        drafts.sort(key=lambda kv: (_PRIORITY.get(kv[1].type, 5), -kv[1].count, kv[1].first))
        drafts = drafts[: max(0, max_entities)]
    drafts.sort(key=lambda kv: (kv[1].first, kv[0]))
    names = {key: d.name for key, d in drafts}
    out_relations: list[ExtractedRelation] = []
    seen: set[tuple[str, str, str]] = set()
    for source_name, relation, target_name in relations:
        if len(out_relations) >= max(0, max_relations):
            break
        s, t = names.get(name_key(source_name)), names.get(name_key(target_name))
        if s is None or t is None or s == t or not relation:
            continue
        triple = (s, relation, t)
        if triple not in seen:
            seen.add(triple)
            out_relations.append(ExtractedRelation(s, relation, t))
    # Surname, first-name and title mentions of one person become the aliases of one entity.
    return resolve_chunk(
        ChunkExtraction(
            entities=[ExtractedEntity(d.name, d.type, d.description) for _, d in drafts],
            relations=out_relations,
            summary=summary,
            source=source,
        ),
        speakers=speakers,
    )


def _noise(e: EntityDraft) -> bool:
    if e.type in ("DATE", "TIME"):
        return is_relative_time(e.name)
    if e.type == "NUMBER":
        return is_small_number(e.name)
    return False
