"""The change notes an improve stage reads: writes that changed what documents mention, or an
entity, without a data item coming or going (:data:`~engramdb.storage.types.GRAPH_CHANGE_PREFIX`).

A stage reads its own notes at the start of a run and drops them (with the stamps it read) in the
transaction that writes its result, so a note written meanwhile stays for its next run.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID

from engramdb.storage.base import Store
from engramdb.storage.types import MEMBER_CHANGE_KIND, graph_change_prefix

__all__ = ["Notes", "notes_of", "read_notes"]


@dataclass(frozen=True, slots=True)
class Notes:
    """The notes a run read: the stamps to drop, the documents and entities noted, and the
    data items noted as come or gone (:data:`~engramdb.storage.types.MEMBER_CHANGE_READER`'s
    only)."""

    stamps: dict[str, str]
    documents: set[UUID]
    entities: set[UUID]
    members: set[UUID]


async def read_notes(store: Store, dataset_id: UUID, reader: str) -> Notes:
    return notes_of(await store.get_improve_states(dataset_id, graph_change_prefix(reader)), reader)


def notes_of(stamps: dict[str, str], reader: str) -> Notes:
    """The notes of ``reader`` among ``stamps`` (improve-state values read by its prefix)."""
    prefix = graph_change_prefix(reader)
    by_kind: dict[str, set[UUID]] = {"d": set(), "e": set(), MEMBER_CHANGE_KIND: set()}
    for key in stamps:
        kind, _, node_id = key.removeprefix(prefix).partition(":")
        by_kind[kind].add(UUID(node_id))
    return Notes(stamps, by_kind["d"], by_kind["e"], by_kind[MEMBER_CHANGE_KIND])
