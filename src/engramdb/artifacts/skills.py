"""Skills as stored: the one reader of a skill's node and procedure record.

``remember_skill`` (:mod:`engramdb.api.skills`) writes a :data:`SKILL_NODE_TYPE` node (name,
``"name: description"`` text, properties ``description`` / ``tags`` / ``procedure_hash``) with
one vector in :data:`SKILL_COLLECTION`, and keeps the procedure body in the data record's
``external_metadata["skill"]``. Retrieval (the SKILLS search, AGENTIC_COMPLETION's offered
skills) and the skill verbs read them back through this module.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from engramdb.models.records import DataRecord, Dataset, Node
from engramdb.models.skills import Skill
from engramdb.storage.base import Store

__all__ = ["MAX_SKILLS", "SKILL_COLLECTION", "SKILL_NODE_TYPE", "find_skill", "skill_of"]

SKILL_NODE_TYPE = "Skill"
SKILL_COLLECTION = "skills"
#: The skills of one dataset a lookup by name reads (bounded).
MAX_SKILLS = 10_000


async def find_skill(store: Store, dataset: Dataset, name_or_id: str) -> Skill | None:
    """The skill of ``dataset`` with this id, or this name (exactly, else ignoring case), with
    its procedure; None when it has none. The caller checked that the user may read
    ``dataset``."""
    try:
        by_id = await store.get_nodes([UUID(name_or_id)])
    except ValueError:
        by_id = []
    nodes = [n for n in by_id if n.type == SKILL_NODE_TYPE and n.dataset_id == dataset.id]
    if not nodes:
        skills = await store.list_nodes([dataset.id], type=SKILL_NODE_TYPE, limit=MAX_SKILLS)
        folded = name_or_id.casefold()
        nodes = [n for n in skills if n.name == name_or_id] or [
            n for n in skills if n.name.casefold() == folded
        ]
    return await skill_of(store, nodes[0]) if nodes else None


async def skill_of(store: Store, node: Node) -> Skill | None:
    """The skill a :data:`SKILL_NODE_TYPE` node stands for, with its current procedure (None
    when no record holds one)."""
    records = [r for r in [await store.get_data(d) for d in node.data_ids] if r is not None]
    body = _body(node, records)
    if body is None:
        return None
    props = node.properties
    return Skill(
        id=node.id,
        data_id=body[0].id,
        dataset_id=node.dataset_id,
        name=node.name,
        description=str(props.get("description", "")),
        tags=list(props.get("tags", [])),
        procedure=body[1],
    )


def _body(node: Node, records: list[DataRecord]) -> tuple[DataRecord, str] | None:
    """The data record holding the node's current procedure (matching hash, else newest)."""
    wanted = node.properties.get("procedure_hash")
    candidates: list[tuple[DataRecord, dict[str, Any]]] = []
    for record in records:
        skill = record.external_metadata.get("skill")
        if isinstance(skill, dict) and isinstance(skill.get("procedure"), str):
            candidates.append((record, skill))
    if not candidates:
        return None
    candidates.sort(key=lambda c: (c[1].get("procedure_hash") == wanted, c[0].created_at))
    record, skill = candidates[-1]
    return record, str(skill["procedure"])
