"""Write an archive of a store (see :mod:`engramdb.archive.format`)."""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from pydantic import BaseModel

from engramdb.archive import format as fmt
from engramdb.errors import DatasetNotFoundError, EngramValidationError
from engramdb.models.records import Dataset, User

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.storage.base import Store

__all__ = ["ExportReport", "export_store", "write_archive"]

#: The fixed time stamped on every member of a ``.zip`` archive (its earliest legal value), so
#: that two exports of equal stores are byte-identical files.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class ExportReport:
    """What :func:`engramdb.export_archive` wrote: where, which datasets, how many records of
    each kind (by file name), how many bytes."""

    path: Path
    datasets: list[str]
    records: dict[str, int] = field(default_factory=dict)
    size_bytes: int = 0


async def export_store(
    engine: Engine,
    dest: str | Path,
    *,
    datasets: Sequence[str | UUID] | None = None,
    with_vectors: bool = False,
    user: User | None = None,
) -> ExportReport:
    """Export ``engine``'s store to ``dest`` (see :func:`engramdb.export_archive`)."""
    from engramdb import __version__
    from engramdb.access.permissions import readable_datasets
    from engramdb.ingest.queue import extract_for_read

    target = Path(dest)
    _check_destination(target)
    if not await engine.database_exists():
        raise EngramValidationError(
            "nothing to export: the store holds no memory yet (remember something first, or "
            "point ENGRAMDB_DATA_DIR / ENGRAMDB_STORAGE_URL at the store to export)"
        )
    await engine.ensure_setup()
    store = engine.store
    visible = await store.list_datasets() if user is None else await readable_datasets(store, user)
    chosen = _choose(visible, datasets)
    await extract_for_read(engine, chosen)  # an archive holds the graph of queued documents too
    users = {u.id: u for u in await store.list_users()}
    files = await _collect(store, chosen, users, with_vectors, user, sessions=datasets is None)
    manifest = fmt.Manifest(
        format_version=fmt.FORMAT_VERSION,
        engramdb_version=__version__,
        with_vectors=with_vectors,
        datasets=[
            fmt.ManifestDataset(id=d.id, name=d.name, owner=_email(users, d.owner_id))
            for d in sorted(chosen, key=lambda d: str(d.id))
        ],
        files={
            name: fmt.ManifestFile(records=count, sha256=fmt.sha256(data))
            for name, (data, count) in sorted(files.items())
        },
    )
    blobs = {name: data for name, (data, _) in files.items()}
    blobs[fmt.MANIFEST] = (fmt.canonical(manifest.model_dump(mode="json")) + "\n").encode()
    size = write_archive(target, blobs)
    return ExportReport(
        path=target,
        datasets=[d.name for d in chosen],
        records={name: count for name, (_, count) in sorted(files.items())},
        size_bytes=size,
    )


def _check_destination(target: Path) -> None:
    if target.exists() and (target.is_file() or any(target.iterdir())):
        raise EngramValidationError(
            f"{target} exists; export writes a new archive: give a path that does not exist "
            "(or an empty directory)"
        )
    if not target.parent.is_dir():
        raise EngramValidationError(f"{target.parent} is not a directory; create it first")


def _choose(visible: list[Dataset], wanted: Sequence[str | UUID] | None) -> list[Dataset]:
    if wanted is None:
        return visible
    if isinstance(wanted, str | UUID):
        wanted = [wanted]
    chosen: dict[UUID, Dataset] = {}
    for ref in wanted:
        found = [d for d in visible if str(d.id) == str(ref) or d.name == str(ref)]
        if not found:
            raise DatasetNotFoundError(
                f"No dataset {str(ref)!r} to export (among those you can read); list them with "
                "engramdb.list_datasets()"
            )
        chosen.update((d.id, d) for d in found)
    return [d for d in visible if d.id in chosen]


def _email(users: dict[UUID, User], user_id: UUID) -> str:
    found = users.get(user_id)
    return str(user_id) if found is None else found.email


def _lines(records: Sequence[BaseModel], *fields: str) -> tuple[bytes, int]:
    return fmt.encode_lines(records, fields), len(records)


async def _collect(
    store: Store,
    chosen: list[Dataset],
    users: dict[UUID, User],
    with_vectors: bool,
    user: User | None,
    *,
    sessions: bool,
) -> dict[str, tuple[bytes, int]]:
    """Every record file's bytes and line count."""
    named: set[UUID] = set()
    kinds: dict[str, list[BaseModel]] = {name: [] for name in fmt.KINDS}
    for dataset in chosen:
        named.add(dataset.owner_id)
        kinds["datasets.jsonl"].append(
            fmt.ArchiveDataset(
                id=dataset.id,
                name=dataset.name,
                owner=_email(users, dataset.owner_id),
                embedding_model=dataset.embedding_model,
                embedding_dim=dataset.embedding_dim,
                created_at=dataset.created_at,
            )
        )
        await _collect_dataset(store, dataset, kinds, with_vectors)
        if user is None or user.id == dataset.owner_id:  # who else may read it: the owner's
            for grant in await store.list_grants(dataset.id):
                if grant.grantee_kind != "user" or grant.grantee_id not in users:
                    continue  # roles and tenants are the store's own (see the docs)
                named.update((grant.grantee_id, grant.granted_by))
                kinds["grants.jsonl"].append(
                    fmt.ArchiveGrant(
                        dataset_id=dataset.id,
                        grantee=_email(users, grant.grantee_id),
                        permission=grant.permission,
                        granted_by=_email(users, grant.granted_by),
                        created_at=grant.created_at,
                    )
                )
    if sessions:
        owners = list(users.values()) if user is None else [user]
        for owner in owners:
            if await _collect_sessions(store, owner, kinds):
                named.add(owner.id)
        entry_ids = [
            r.id  # type: ignore[attr-defined]
            for name in ("session_qa.jsonl", "session_traces.jsonl", "session_guidance.jsonl")
            for r in kinds[name]
        ]
        kinds["session_marks.jsonl"] = [
            fmt.ArchiveMark(
                kind=m.kind,  # type: ignore[arg-type]
                entry_id=m.entry_id,
                consumer=m.consumer,
                rating_rev=m.rating_rev,
            )
            for m in await store.list_marks(entry_ids)
        ]
    kinds["users.jsonl"] = [
        fmt.ArchiveUser(email=u.email, is_default=u.is_default, is_admin=u.is_admin)
        for uid, u in users.items()
        if uid in named
    ]
    order: dict[str, tuple[str, ...]] = {
        "users.jsonl": ("email",),
        "datasets.jsonl": ("id",),
        "data.jsonl": ("dataset_id", "created_at", "id"),
        "nodes.jsonl": ("dataset_id", "id"),
        "edges.jsonl": ("dataset_id", "id"),
        "index.jsonl": ("dataset_id", "index", "node_id", "collection"),
        "vectors.jsonl": ("dataset_id", "node_id", "collection"),
        "derived.jsonl": ("dataset_id", "kind", "id"),
        "improve_state.jsonl": ("dataset_id", "key"),
        "staged.jsonl": ("dataset_id", "content_hash"),
        "grants.jsonl": ("dataset_id", "grantee", "permission"),
        "session_qa.jsonl": ("user", "session_id", "created_at", "id"),
        "session_traces.jsonl": ("user", "session_id", "created_at", "id"),
        "session_guidance.jsonl": ("user", "session_id", "created_at", "id"),
        "session_marks.jsonl": ("entry_id", "kind", "consumer"),
    }
    files = {name: _lines(records, *order[name]) for name, records in kinds.items()}
    if not with_vectors:
        del files[fmt.VECTORS]
    return files


async def _collect_dataset(
    store: Store, dataset: Dataset, kinds: dict[str, list[BaseModel]], with_vectors: bool
) -> None:
    did = dataset.id
    kinds["data.jsonl"] += [
        fmt.KINDS["data.jsonl"].model_validate(r.model_dump()) for r in await store.list_data(did)
    ]
    graph = await store.archive_graph(did)
    kinds["nodes.jsonl"] += [
        fmt.KINDS["nodes.jsonl"].model_validate(n.model_dump()) for n in graph.nodes
    ]
    kinds["edges.jsonl"] += [
        fmt.KINDS["edges.jsonl"].model_validate(e.model_dump()) for e in graph.edges
    ]
    kinds["index.jsonl"] += [
        fmt.ArchiveIndex(dataset_id=did, index=index, node_id=node_id, collection=collection)  # type: ignore[arg-type]
        for index, node_id, collection in graph.indexed
    ]
    kinds["derived.jsonl"] += [
        fmt.ArchiveDerived(dataset_id=did, kind=kind, id=element_id, owner=owner)  # type: ignore[arg-type]
        for kind, element_id, owner in graph.derived
    ]
    kinds["improve_state.jsonl"] += [
        fmt.ArchiveState(dataset_id=did, key=key, value=value) for key, value in graph.state
    ]
    kinds["staged.jsonl"] += [
        fmt.ArchiveStaged(
            dataset_id=did,
            content_hash=s.content_hash,
            name=s.name,
            text=s.text,
            mime_type=s.mime_type,
            size_bytes=s.size_bytes,
            source_path=s.source_path,
            options=dict(s.options),
        )
        for s in await store.list_staged(did)
    ]
    if with_vectors:
        kinds[fmt.VECTORS] += [
            fmt.ArchiveVector(
                dataset_id=did,
                node_id=v.node_id,
                collection=v.collection,
                dim=int(v.vector.shape[0]),
                vector=fmt.encode_vector(v.vector),
            )
            for v in await store.archive_vectors(did)
        ]


async def _collect_sessions(store: Store, owner: User, kinds: dict[str, list[BaseModel]]) -> bool:
    """Add the user's session entries; True when there was any."""
    email = owner.email
    qa = await store.list_qa_entries(owner.id)
    traces = await store.list_trace_entries(owner.id)
    kinds["session_qa.jsonl"] += [
        fmt.ArchiveQA(user=email, **_without(e.model_dump(), "user_id", "seq")) for e in qa
    ]
    kinds["session_traces.jsonl"] += [
        fmt.ArchiveTrace(user=email, **_without(e.model_dump(), "user_id", "seq")) for e in traces
    ]
    found = bool(qa or traces)
    for session in await store.list_sessions(owner.id):
        guidance = await store.list_context_entries(owner.id, session.session_id)
        found = found or bool(guidance)
        kinds["session_guidance.jsonl"] += [
            fmt.ArchiveGuidance(
                user=email, **_without(e.model_dump(), "user_id", "seq", "updated_at")
            )
            for e in guidance
        ]
    return found


def _without(values: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k not in names}


def write_archive(target: Path, blobs: dict[str, bytes]) -> int:
    """Write the files (a directory, or a ``.zip`` when ``target`` ends so) next to ``target``
    first, then move them into place: a failed export leaves nothing behind. Returns the size
    in bytes."""
    parent = target.parent
    if target.suffix == ".zip":
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=parent)
        os.close(fd)
        try:
            with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for name in sorted(blobs):
                    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.external_attr = 0o644 << 16
                    archive.writestr(info, blobs[name])
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target.stat().st_size
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=parent))
    try:
        for name, data in blobs.items():
            (staging / name).write_bytes(data)
        if target.exists():  # an empty directory (checked by the caller)
            target.rmdir()
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return sum(len(data) for data in blobs.values())
