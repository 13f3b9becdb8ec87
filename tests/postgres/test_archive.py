"""Export and import across backends (issue 15, item 6).

"Done when: a round trip SQLite → export → import into PostgreSQL → export gives byte-identical
archives (vectors excluded)."
"""

from __future__ import annotations

from pathlib import Path

import pytest

import engramdb
from engramdb.engine import Engine
from tests.integration.test_archive import answers, archive_files, build_sample, personalised
from tests.postgres.server import PostgresServer

pytestmark = pytest.mark.postgres

__all__ = ["personalised"]  # the fixture, used here too


async def test_sqlite_to_postgres_and_back_gives_byte_identical_archives(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        await engramdb.export_archive(tmp_path / "from-sqlite", engine=source)
        await engramdb.export_archive(tmp_path / "v-sqlite.zip", engine=source, with_vectors=True)
        before = await answers(source)
    async with Engine(data_dir=tmp_path / "pg", storage_url=postgres_server.fresh_url()) as pg:
        first = await engramdb.import_archive(tmp_path / "from-sqlite", engine=pg)
        again = await engramdb.import_archive(tmp_path / "from-sqlite", engine=pg)
        assert first.documents_written > 0 and again.documents_written == 0
        await engramdb.export_archive(tmp_path / "from-postgres", engine=pg)
        assert await answers(pg) == before
    assert archive_files(tmp_path / "from-postgres") == archive_files(tmp_path / "from-sqlite")

    async with Engine(data_dir=tmp_path / "pg2", storage_url=postgres_server.fresh_url()) as pg:
        imported = await engramdb.import_archive(tmp_path / "v-sqlite.zip", engine=pg)
        assert imported.vectors_embedded == 0
        await engramdb.export_archive(tmp_path / "v-postgres.zip", engine=pg, with_vectors=True)
        assert await answers(pg) == before
    async with Engine(data_dir=tmp_path / "back") as back:  # and home again
        await engramdb.import_archive(tmp_path / "v-postgres.zip", engine=back)
        await engramdb.export_archive(tmp_path / "v-back.zip", engine=back, with_vectors=True)
    assert archive_files(tmp_path / "v-postgres.zip") == archive_files(tmp_path / "v-sqlite.zip")
    assert archive_files(tmp_path / "v-back.zip") == archive_files(tmp_path / "v-sqlite.zip")
