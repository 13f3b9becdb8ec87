"""Staged inputs on PostgreSQL: what ``add()`` stored and ``cognify()`` has not built yet."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engramdb.models.records import utcnow
from engramdb.storage.base import StagedItem
from engramdb.storage.postgres.database import Conn
from engramdb.storage.postgres.rows import to_json

__all__ = ["count_staged", "list_staged", "stage_data", "unstage"]

_COLUMNS = "dataset_id, content_hash, name, text, mime_type, size_bytes, source_path, options"


async def stage_data(conn: Conn, items: Sequence[StagedItem]) -> int:
    added = 0
    now = utcnow()
    for item in items:
        cur = await conn.execute(
            f"INSERT INTO staged_data ({_COLUMNS}, created_at) "
            "SELECT id, %s, %s, %s, %s, %s, %s, %s::jsonb, %s FROM datasets WHERE id = %s "
            "ON CONFLICT (dataset_id, content_hash) DO NOTHING",
            (
                item.content_hash,
                item.name,
                item.text,
                item.mime_type,
                item.size_bytes,
                item.source_path,
                to_json(dict(item.options)),
                now,
                item.dataset_id,
            ),
        )
        added += max(cur.rowcount, 0)
    return added


async def list_staged(conn: Conn, dataset_id: UUID) -> list[StagedItem]:
    cur = await conn.execute(
        f"SELECT {_COLUMNS} FROM staged_data WHERE dataset_id = %s ORDER BY seq", (dataset_id,)
    )
    return [
        StagedItem(
            dataset_id=row[0],
            content_hash=row[1],
            name=row[2],
            text=row[3],
            mime_type=row[4],
            size_bytes=int(row[5]),
            source_path=row[6],
            options=dict(row[7] or {}),
        )
        for row in await cur.fetchall()
    ]


async def unstage(conn: Conn, dataset_id: UUID, content_hashes: Sequence[str]) -> int:
    cur = await conn.execute(
        "DELETE FROM staged_data WHERE dataset_id = %s AND content_hash = ANY(%s)",
        (dataset_id, list(content_hashes)),
    )
    return max(cur.rowcount, 0)


async def count_staged(conn: Conn, dataset_ids: Sequence[UUID]) -> int:
    cur = await conn.execute(
        "SELECT count(*) FROM staged_data WHERE dataset_id = ANY(%s)", (list(dataset_ids),)
    )
    row = await cur.fetchone()
    return 0 if row is None else int(row[0])
