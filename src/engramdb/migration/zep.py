"""Zep and Graphiti graph dumps: episodes, entity nodes and fact edges (bi-temporal)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from uuid import UUID

from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
from engramdb.migration.base import (
    DEFAULT_MAX_EXPORT_BYTES,
    ImportedRecord,
    MemorySource,
    drop_empty,
)

__all__ = ["GraphitiSource", "ZepSource"]

_EPISODE_KEYS = ("episodes", "episodic_nodes")
_ENTITY_KEYS = ("entities", "nodes", "entity_nodes")
_FACT_KEYS = ("facts", "edges", "entity_edges")
#: The entity type of a node whose labels name none beyond Graphiti's generic "Entity".
DEFAULT_ENTITY_TYPE = "ENTITY"
#: The relation of an edge without a name.
DEFAULT_RELATION = "relates_to"
_NOT_WORD = re.compile(r"[^0-9a-z]+")


class ZepSource(MemorySource):
    """A JSON dump of a Zep or Graphiti knowledge graph; a path or the loaded JSON::

        {"episodes": [{"uuid", "name", "content" | "episode_body", "created_at", "valid_at",
                       "group_id", "source_description"}],
         "nodes" | "entities": [{"uuid", "name", "labels", "summary", "attributes"}],
         "edges" | "facts": [{"uuid", "source_node_uuid", "target_node_uuid", "name", "fact",
                              "valid_at", "invalid_at", "expired_at", "created_at",
                              "episodes"}]}

    Each episode becomes a document (``# <name>`` and its content). Each entity node becomes a
    document (``"<name> (<type>): <summary>"``) and each fact edge a document holding its
    sentence (``"Alice —works_with→ Bob: <fact> (valid from ..., invalid since ...)"``). In
    ``"hybrid"`` mode (the default, as in cognee) and ``"preserve"`` the entity and fact
    documents carry the dump's graph as given: the entity nodes (typed by their first label
    other than "Entity") and the edges, with ``valid_at``/``invalid_at`` as edge properties and
    no LLM call. In ``"re-derive"`` they are extracted like any text. ``external_metadata``
    keeps the uuids, ``group_id``, ``created_at`` (the document's date), ``valid_at`` and
    ``invalid_at``. A fact whose endpoint uuid is not a node of the dump is refused; an endpoint
    given by name becomes an entity of that name.
    """

    source_system = "zep"
    export_name = "Zep export"

    def __init__(self, data: str | Path | dict[str, Any], mode: str = "hybrid") -> None:
        super().__init__(mode=mode)
        self._data = data

    def read(self, *, max_file_bytes: int = DEFAULT_MAX_EXPORT_BYTES) -> list[ImportedRecord]:
        raw = self._load(max_file_bytes)
        if not isinstance(raw, dict) or not any(
            key in raw for key in (*_EPISODE_KEYS, *_ENTITY_KEYS, *_FACT_KEYS)
        ):
            raise self._fail(
                "is not a Zep/Graphiti dump",
                "expected an object with 'episodes', 'nodes' (or 'entities') and 'edges' (or "
                "'facts')",
            )
        key, episodes = self._collection(raw, _EPISODE_KEYS)
        records = [self._episode(e, f"{key}[{i}]", i) for i, e in enumerate(episodes)]
        key, nodes = self._collection(raw, _ENTITY_KEYS)
        entities: dict[str, ExtractedEntity] = {}
        for i, node in enumerate(nodes):
            record, entity, ids = self._entity(node, f"{key}[{i}]", i)
            records.append(record)
            for ref in ids:
                entities[ref] = entity
        by_name = {entity.name.casefold(): entity for entity in entities.values()}
        key, edges = self._collection(raw, _FACT_KEYS)
        for i, edge in enumerate(edges):
            records.append(self._fact(edge, f"{key}[{i}]", i, entities, by_name))
        return records

    def _episode(self, episode: dict[str, Any], at: str, index: int) -> ImportedRecord:
        content = self._text(episode, ("content", "episode_body"), at)
        if content is None or not content.strip():
            raise self._fail(f"{at} has no content", "each episode needs a 'content' string")
        name = self._text(episode, ("name",), at)
        created = self._timestamp(episode, "created_at", at)
        valid = self._timestamp(episode, "valid_at", at)
        text = f"# {name.strip()}\n{content.strip()}" if name and name.strip() else content.strip()
        return ImportedRecord(
            kind="episode",
            external_id=str(episode.get("uuid") or episode.get("id") or f"episode-{index}"),
            text=text,
            metadata=drop_empty(
                {
                    "name": name,
                    "created_at": created or valid,
                    "valid_at": valid,
                    "group_id": episode.get("group_id") or episode.get("session_id"),
                    "user_id": episode.get("user_id"),
                    "source": episode.get("source"),
                    "source_description": episode.get("source_description"),
                }
            ),
        )

    def _entity(
        self, node: dict[str, Any], at: str, index: int
    ) -> tuple[ImportedRecord, ExtractedEntity, list[str]]:
        name = self._text(node, ("name",), at)
        if name is None or not name.strip():
            raise self._fail(f"{at} has no name", "each entity node needs a 'name' string")
        labels = node.get("labels") or node.get("label") or []
        if isinstance(labels, str):
            labels = [labels]
        if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
            raise self._fail(f"{at}.labels is not a list of strings", "export it again")
        label = next((x for x in labels if x.strip() and x != "Entity"), None)
        type_ = label.strip().upper().replace(" ", "_") if label else DEFAULT_ENTITY_TYPE
        summary = (self._text(node, ("summary", "description"), at) or "").strip()
        entity = ExtractedEntity(name.strip(), type_, summary)
        external_id = str(node.get("uuid") or node.get("id") or f"entity-{index}")
        shown = label or "Entity"
        text = f"{entity.name} ({shown}): {summary}" if summary else f"{entity.name} ({shown})"
        attributes = node.get("attributes")
        record = ImportedRecord(
            kind="entity",
            external_id=external_id,
            text=text,
            metadata=drop_empty(
                {
                    "name": entity.name,
                    "labels": labels,
                    "attributes": attributes if isinstance(attributes, dict) else None,
                    "created_at": self._timestamp(node, "created_at", at),
                    "group_id": node.get("group_id") or node.get("session_id"),
                }
            ),
            graph=ChunkExtraction(entities=[entity], source=f"import:{self.source_system}"),
        )
        ids = [str(v) for v in (node.get("uuid"), node.get("id")) if v]
        return record, entity, ids or [external_id]

    def _fact(
        self,
        edge: dict[str, Any],
        at: str,
        index: int,
        entities: dict[str, ExtractedEntity],
        by_name: dict[str, ExtractedEntity],
    ) -> ImportedRecord:
        ends: list[ExtractedEntity] = []
        for keys in (("source_node_uuid", "source"), ("target_node_uuid", "target")):
            ref = next((edge[k] for k in keys if edge.get(k)), None)
            if ref is None:
                raise self._fail(f"{at} has no {keys[0]}", "each edge needs both endpoints")
            ref = str(ref)
            found = entities.get(ref) or by_name.get(ref.casefold())
            if found is None:
                if _is_uuid(ref):
                    raise self._fail(
                        f"{at}.{keys[0]} is {ref!r}, which no node of the dump has",
                        "export the nodes together with the edges",
                    )
                found = ExtractedEntity(ref, DEFAULT_ENTITY_TYPE)
            ends.append(found)
        subject, obj = ends
        relation = _relation(self._text(edge, ("name", "relation"), at) or DEFAULT_RELATION)
        fact = (self._text(edge, ("fact",), at) or "").strip()
        valid = self._timestamp(edge, "valid_at", at)
        invalid = self._timestamp(edge, "invalid_at", at) or self._timestamp(edge, "expired_at", at)
        created = self._timestamp(edge, "created_at", at)
        text = f"{subject.name} —{relation}→ {obj.name}" + (f": {fact}" if fact else "")
        qualifiers = [f"valid from {valid}"] if valid else []
        qualifiers += [f"invalid since {invalid}"] if invalid else []
        if qualifiers:
            text += f" ({', '.join(qualifiers)})"
        external_id = str(edge.get("uuid") or edge.get("id") or f"fact-{index}")
        validity = drop_empty({"valid_at": valid, "invalid_at": invalid})
        episodes = edge.get("episodes")
        return ImportedRecord(
            kind="fact",
            external_id=external_id,
            text=text,
            metadata=drop_empty(
                {
                    "relation": relation,
                    "source_name": subject.name,
                    "target_name": obj.name,
                    "fact": fact,
                    "created_at": created or valid,
                    **validity,
                    "episodes": [str(e) for e in episodes] if isinstance(episodes, list) else None,
                    "group_id": edge.get("group_id") or edge.get("session_id"),
                }
            ),
            graph=ChunkExtraction(
                entities=[subject, obj] if subject.name != obj.name else [subject],
                relations=[
                    ExtractedRelation(
                        subject.name,
                        relation,
                        obj.name,
                        properties={
                            "external_system": self.source_system,
                            "external_id": external_id,
                            **({"fact": fact} if fact else {}),
                            **validity,
                        },
                    )
                ],
                source=f"import:{self.source_system}",
            ),
        )


class GraphitiSource(ZepSource):
    """An OSS Graphiti dump: the same shape as a Zep graph export."""

    source_system = "graphiti"
    export_name = "Graphiti export"


def _relation(name: str) -> str:
    """An edge name as a snake_case relation ("WORKS_WITH" → "works_with")."""
    return _NOT_WORD.sub("_", name.casefold()).strip("_") or DEFAULT_RELATION


def _is_uuid(value: str) -> bool:
    try:
        UUID(value)
    except ValueError:
        return False
    return True
