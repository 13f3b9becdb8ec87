"""Apply a checked archive to a store (see :mod:`engramdb.archive.format`).

Order: users, datasets (with their archived ids), then each data record in one
``write_document`` transaction together with the nodes and edges it supports and their index
entries (vectors from the archive, or embedded again), then the derived elements, improve
state, staged inputs, grants and session entries. Every step skips what is already there, so
importing an archive twice changes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from uuid import UUID

import numpy as np

from engramdb.archive import format as fmt
from engramdb.archive.reader import Archive
from engramdb.errors import ConflictError
from engramdb.graph_schema import ENTITY_COLLECTION
from engramdb.models.access import Grant
from engramdb.models.records import DataRecord, Dataset, Edge, Node, NodeType, User
from engramdb.models.sessions import ContextRecord, EntryMark, QARecord, TraceRecord
from engramdb.storage.lending import dataset_lock
from engramdb.storage.types import (
    MEMBER_CHANGE_PREFIX,
    DerivedWrite,
    DocumentWrite,
    StagedItem,
    VectorRow,
    member_change_key,
)

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.providers.embedding.base import Embedder
    from engramdb.storage.base import Store

__all__ = ["ImportReport", "embedded_text", "import_store"]

#: Documents whose texts are embedded in one batch.
_WINDOW = 64


@dataclass(frozen=True)
class ImportReport:
    """What :func:`engramdb.import_archive` did: datasets created, documents written and
    skipped (already there), vectors embedded again, session entries added."""

    datasets_created: int = 0
    documents_written: int = 0
    documents_skipped: int = 0
    vectors_embedded: int = 0
    session_entries: int = 0


def embedded_text(node: Node, collection: str) -> str:
    """The text a node's vector in ``collection`` is computed from: an extracted entity's name
    in ``entities``, the node's text everywhere else (chunks, summaries, skills, data points)."""
    if collection == ENTITY_COLLECTION and node.type == NodeType.ENTITY:
        return node.name
    return node.text


async def import_store(
    engine: Engine, archive: Archive, *, user: User | None = None
) -> ImportReport:
    """Import ``archive`` into ``engine``'s store (see :func:`engramdb.import_archive`)."""
    await engine.ensure_setup()
    store = engine.store
    owners = await _users(store, archive, user)
    embedder = engine.embedder
    datasets = [
        Dataset(
            id=d.id,
            owner_id=owners[d.owner],
            name=d.name,
            created_at=d.created_at,
            # vectors are (re)made by this store's embedder; a dataset without any stays so
            embedding_model=None if d.embedding_model is None else embedder.model_name,
            embedding_dim=None if d.embedding_model is None else embedder.dimension,
        )
        for d in archive.of("datasets.jsonl")
    ]
    await _check_embeddings(engine, datasets)
    created = 0
    for dataset in datasets:
        if await store.get_dataset(dataset.id) is None:
            created += 1
        stored = await store.insert_dataset(dataset)
        if dataset.embedding_model is not None:
            await engine.bind_embedding(stored, embedder)
    reuse = _reusable_vectors(archive, embedder)
    written = skipped = embedded = 0
    timeout = engine.settings.engramdb_lock_timeout
    for dataset in sorted(datasets, key=lambda d: str(d.id)):
        part = archive.part(dataset.id)
        # as ingestion does: one writer of a dataset's graph at a time
        async with store.lock(dataset_lock(dataset.id), timeout=timeout):
            counts = await _documents(store, part, embedder, reuse)
            await _derived(store, part)
            states = {s.key: s.value for s in part.of("improve_state.jsonl")}
            for key, value in states.items():
                await store.set_improve_state(dataset.id, key, value)
            # the archive's state covers the documents it holds: the notes that their writes
            # here added (each came), in this import or an earlier failed one, are not the
            # source's, and go
            held = {member_change_key(r.id) for r in part.of("data.jsonl")}
            made = await store.get_improve_states(dataset.id, MEMBER_CHANGE_PREFIX)
            await store.drop_improve_states(
                dataset.id, sorted(k for k in made if k in held and k not in states)
            )
        written, skipped, embedded = written + counts[0], skipped + counts[1], embedded + counts[2]
    staged = archive.of("staged.jsonl")
    if staged:
        await store.stage_data(
            [StagedItem(**s.model_dump(exclude={"options"}), options=s.options) for s in staged]
        )
    await _grants(store, archive, owners, user)
    entries = await _sessions(store, archive, owners)
    return ImportReport(
        datasets_created=created,
        documents_written=written,
        documents_skipped=skipped,
        vectors_embedded=embedded,
        session_entries=entries,
    )


async def _users(store: Store, archive: Archive, user: User | None) -> dict[str, UUID]:
    """E-mail -> user id in the target store (the default user is the target's default user;
    others are found by e-mail, or created). With ``user``, every name maps to that user.
    Refuses a dataset name clash (see :func:`_check_clash`) before creating anyone."""
    users = archive.of("users.jsonl")
    if user is not None:
        found = {u.email: user.id for u in users}
        await _check_clash(store, archive, found)
        return found
    found = {}
    for item in users:
        existing = (
            await store.get_default_user()
            if item.is_default
            else await store.find_user_by_email(item.email)
        )
        if existing is not None:
            found[item.email] = existing.id
    await _check_clash(store, archive, found)
    for item in users:
        if item.is_default:
            target = await store.get_or_create_default_user()
        else:
            existing = await store.find_user_by_email(item.email)
            target = existing if existing is not None else await store.create_user(item.email)
            if item.is_admin and not target.is_admin:
                target = await store.set_user_admin(target.id, True)
        found[item.email] = target.id
    return found


async def _check_clash(store: Store, archive: Archive, owners: dict[str, UUID]) -> None:
    """Refuse, before writing anything, a dataset whose owner already has another of its name
    (a user the store does not hold yet owns nothing)."""
    for dataset in archive.of("datasets.jsonl"):
        owner = owners.get(dataset.owner)
        same = None if owner is None else await store.find_dataset(owner, dataset.name)
        if same is not None and same.id != dataset.id:
            raise ConflictError(
                f"the store already has a dataset named {dataset.name!r} (id {same.id}) of the "
                f"same owner, and the archive's is another one ({dataset.id}); forget it, or "
                "import into another store; nothing was imported"
            )


async def _check_embeddings(engine: Engine, datasets: Sequence[Dataset]) -> None:
    """Refuse a dataset already in the store with vectors of another embedder."""
    from engramdb.engine import check_embedding

    for dataset in datasets:
        stored = await engine.store.get_dataset(dataset.id)
        if stored is not None:
            check_embedding(stored, engine.embedder)


def _reusable_vectors(archive: Archive, embedder: Embedder) -> dict[tuple[UUID, str], Any]:
    """The archive's vectors, when they were made by the embedder this store uses."""
    if not archive.manifest.with_vectors:
        return {}
    models = {d.id: (d.embedding_model, d.embedding_dim) for d in archive.of("datasets.jsonl")}
    mine = (embedder.model_name, embedder.dimension)
    return {
        (v.node_id, v.collection): fmt.decode_vector(v.vector, v.dim)
        for v in archive.of(fmt.VECTORS)
        if models.get(v.dataset_id) == mine
    }


async def _documents(
    store: Store, archive: Archive, embedder: Embedder, reuse: dict[tuple[UUID, str], Any]
) -> tuple[int, int, int]:
    derived = {d.id for d in archive.of("derived.jsonl")}
    nodes_of: dict[UUID, list[Node]] = defaultdict(list)
    edges_of: dict[UUID, list[Edge]] = defaultdict(list)
    nodes: dict[UUID, Node] = {}
    for node in archive.of("nodes.jsonl"):
        if node.id in derived:
            continue
        nodes[node.id] = node
        plain = _plain_node(node)
        for data_id in node.data_ids:
            nodes_of[data_id].append(plain)
    for edge in archive.of("edges.jsonl"):
        if edge.id not in derived:
            link = _plain_edge(edge)
            for data_id in edge.data_ids:
                edges_of[data_id].append(link)
    index: dict[UUID, list[tuple[str, str]]] = defaultdict(list)
    for entry in archive.of("index.jsonl"):
        if entry.node_id in nodes:
            index[entry.node_id].append((entry.index, entry.collection))
    records = sorted(archive.of("data.jsonl"), key=lambda r: (r.created_at, str(r.id)))
    carried: set[UUID] = set()  # nodes whose index entries an earlier document carries
    written = skipped = embedded = 0
    for start in range(0, len(records), _WINDOW):
        window = records[start : start + _WINDOW]
        plans = []
        for record in window:
            if await store.find_data_by_hash(record.dataset_id, record.content_hash) is not None:
                skipped += 1  # there already (an earlier import): nothing to embed or write
                continue
            own = [n.id for n in nodes_of[record.id] if n.id not in carried]
            carried.update(own)
            plans.append((record, own))
        wanted = {
            (nid, coll): embedded_text(nodes[nid], coll)
            for _, own in plans
            for nid in own
            for kind, coll in index[nid]
            if kind == "vector" and (nid, coll) not in reuse
        }
        fresh: dict[tuple[UUID, str], Any] = {}
        texts = list(dict.fromkeys(wanted.values()))
        if texts:
            matrix = await embedder.embed(texts)
            row = {text: i for i, text in enumerate(texts)}
            fresh = {key: matrix[row[text]].astype(np.float32) for key, text in wanted.items()}
            embedded += len(wanted)
        for record, own in plans:
            lexical: dict[str, list[tuple[UUID, str]]] = defaultdict(list)
            rows: list[VectorRow] = []
            for nid in own:
                for kind, coll in index[nid]:
                    if kind == "lexical":
                        lexical[coll].append((nid, nodes[nid].text))
                        continue
                    vector = fresh.get((nid, coll), reuse.get((nid, coll)))
                    if vector is not None:
                        rows.append(VectorRow(nid, coll, vector))
            done = await store.write_document(
                DocumentWrite(
                    data=DataRecord.model_validate(record.model_dump()),
                    nodes=nodes_of[record.id],
                    edges=edges_of[record.id],
                    vectors=rows,
                    lexical=dict(lexical),
                )
            )
            written, skipped = (written + 1, skipped) if done else (written, skipped + 1)
    return written, skipped, embedded


def _plain_node(node: Node) -> Node:
    return Node.model_validate(node.model_dump(exclude={"data_ids"}))


def _plain_edge(edge: Edge) -> Edge:
    return Edge.model_validate(edge.model_dump(exclude={"data_ids"}))


async def _derived(store: Store, archive: Archive) -> None:
    """Derived nodes of every owner first, then their edges (an edge may join two owners')."""
    owner_of = {(d.kind, d.id): (d.dataset_id, d.owner) for d in archive.of("derived.jsonl")}
    nodes: dict[tuple[UUID, str], list[Node]] = defaultdict(list)
    anchors: dict[tuple[UUID, str], dict[UUID, UUID]] = defaultdict(dict)
    for node in archive.of("nodes.jsonl"):
        key = owner_of.get(("node", node.id))
        if key is not None:
            nodes[key].append(_plain_node(node))
            if node.data_ids:
                anchors[key][node.id] = sorted(node.data_ids, key=str)[0]
    edges: dict[tuple[UUID, str], list[Edge]] = defaultdict(list)
    for edge in archive.of("edges.jsonl"):
        key = owner_of.get(("edge", edge.id))
        if key is not None:
            edges[key].append(_plain_edge(edge))
    for (dataset_id, owner), items in sorted(
        nodes.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])
    ):
        await store.write_derived(
            DerivedWrite(dataset_id, owner, nodes=items, anchors=anchors[(dataset_id, owner)])
        )
    for (dataset_id, owner), links in sorted(
        edges.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])
    ):
        await store.write_derived(DerivedWrite(dataset_id, owner, edges=links))


async def _grants(
    store: Store, archive: Archive, owners: dict[str, UUID], user: User | None
) -> None:
    if user is not None:  # imported into one user's space: the archive's other users are not here
        return
    for grant in archive.of("grants.jsonl"):
        grantor = owners.get(grant.granted_by)
        await store.add_grant(
            Grant(
                dataset_id=grant.dataset_id,
                grantee_id=owners[grant.grantee],
                permission=grant.permission,
                granted_by=owners[grant.grantee] if grantor is None else grantor,
                created_at=grant.created_at,
            )
        )


async def _sessions(store: Store, archive: Archive, owners: dict[str, UUID]) -> int:
    added = 0
    known_qa: dict[UUID, set[UUID]] = {}
    for entry in archive.of("session_qa.jsonl"):
        uid = owners[entry.user]
        if uid not in known_qa:
            known_qa[uid] = {e.id for e in await store.list_qa_entries(uid)}
        if entry.id in known_qa[uid]:
            continue
        await store.add_qa_entry(QARecord(user_id=uid, **entry.model_dump(exclude={"user"})))
        added += 1
    known_traces: dict[UUID, set[UUID]] = {}
    for step in archive.of("session_traces.jsonl"):
        uid = owners[step.user]
        if uid not in known_traces:
            known_traces[uid] = {e.id for e in await store.list_trace_entries(uid)}
        if step.id in known_traces[uid]:
            continue
        await store.add_trace_entry(TraceRecord(user_id=uid, **step.model_dump(exclude={"user"})))
        added += 1
    for item in archive.of("session_guidance.jsonl"):
        uid = owners[item.user]
        values = item.model_dump(exclude={"user"})
        _, new = await store.add_context_entry(
            ContextRecord(user_id=uid, updated_at=item.created_at, **values)
        )
        added += int(new)
    by_consumer: dict[str, list[EntryMark]] = defaultdict(list)
    for mark in archive.of("session_marks.jsonl"):
        by_consumer[mark.consumer].append(EntryMark(mark.kind, mark.entry_id, mark.rating_rev))
    for consumer, marks in sorted(by_consumer.items()):
        await store.mark_session_entries(consumer, marks)
    return added
