"""Staged inputs on SQLite: what ``add()`` stored and ``cognify()`` has not built yet."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from uuid import UUID

from engramdb.models.records import utcnow
from engramdb.storage.base import StagedItem
from engramdb.storage.sql.values import as_json
from engramdb.storage.sqlite.rows import to_json, to_time

__all__ = ["count_staged", "list_staged", "stage_data", "unstage"]

_COLUMNS = "dataset_id, content_hash, name, text, mime_type, size_bytes, source_path, options"


def stage_data(conn: sqlite3.Connection, items: Sequence[StagedItem]) -> int:
    added = 0
    now = to_time(utcnow())
    for item in items:
        added += conn.execute(
            f"INSERT INTO staged_data ({_COLUMNS}, created_at) "
            "SELECT id, ?, ?, ?, ?, ?, ?, ?, ? FROM datasets WHERE id = ? "
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
                str(item.dataset_id),
            ),
        ).rowcount
    return added


def list_staged(conn: sqlite3.Connection, dataset_id: UUID) -> list[StagedItem]:
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM staged_data WHERE dataset_id = ? ORDER BY seq",
        (str(dataset_id),),
    ).fetchall()
    return [
        StagedItem(
            dataset_id=UUID(row[0]),
            content_hash=row[1],
            name=row[2],
            text=row[3],
            mime_type=row[4],
            size_bytes=int(row[5]),
            source_path=row[6],
            options=as_json(row[7], {}),
        )
        for row in rows
    ]


def unstage(conn: sqlite3.Connection, dataset_id: UUID, content_hashes: Sequence[str]) -> int:
    return conn.execute(
        "DELETE FROM staged_data WHERE dataset_id = ? "
        "AND content_hash IN (SELECT value FROM json_each(?))",
        (str(dataset_id), to_json(list(content_hashes))),
    ).rowcount


def count_staged(conn: sqlite3.Connection, dataset_ids: Sequence[UUID]) -> int:
    row = conn.execute(
        "SELECT count(*) FROM staged_data WHERE dataset_id IN (SELECT value FROM json_each(?))",
        (to_json([str(d) for d in dataset_ids]),),
    ).fetchone()
    return int(row[0])
