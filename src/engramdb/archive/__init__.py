"""Export and import: a documented, versioned, lossless archive of a store's memory.

``engramdb.export_archive(dest)`` writes every dataset the caller can read -- data records,
graph (nodes and edges with weights and provenance), derived elements (conflicts, preferences,
the global index), improve state, staged inputs, grants, sessions with their ratings, traces
and guidance -- as canonical JSON Lines files with a manifest (:mod:`.format`);
``engramdb.import_archive(src)`` puts them into another store, SQLite or PostgreSQL, on this
machine or another. Vectors are optional (``with_vectors=True``); without them the import
embeds the texts again. Importing twice changes nothing; each document is written in one
transaction. ``docs/export-import.md`` describes the format.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from uuid import UUID

from engramdb.archive.export import ExportReport
from engramdb.archive.format import FORMAT_VERSION
from engramdb.archive.importer import ImportReport

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.models.records import User

__all__ = ["FORMAT_VERSION", "ExportReport", "ImportReport", "export_archive", "import_archive"]


async def export_archive(
    dest: str | Path,
    *,
    datasets: Sequence[str | UUID] | str | UUID | None = None,
    with_vectors: bool = False,
    user: User | None = None,
    engine: Engine | None = None,
) -> ExportReport:
    """Write an archive of the store to ``dest``: a new directory, or a ``.zip`` file when the
    name ends so.

    ``datasets`` (names or ids) limits it to those datasets; sessions are exported only when
    every dataset is. ``user`` exports only what that user may read (their own and granted
    datasets, their own sessions); without it, the whole store (an operator's export, like
    ``engramdb backup``). ``with_vectors`` adds the embeddings (else an import embeds again).
    Runs on ``engine``, or the default engine. Two exports of equal stores are byte-identical.
    """
    from engramdb.archive.export import export_store

    wanted = [datasets] if isinstance(datasets, str | UUID) else datasets
    return await export_store(
        engine or _local("export"), dest, datasets=wanted, with_vectors=with_vectors, user=user
    )


async def import_archive(
    src: str | Path, *, user: User | None = None, engine: Engine | None = None
) -> ImportReport:
    """Import the archive at ``src`` (written by :func:`export_archive`) into the store.

    The whole archive is checked first (manifest, format version, checksums, every record); a
    damaged or unsupported one raises EngramValidationError and writes nothing. Datasets keep
    their ids; users are matched by e-mail (the default user is this store's default user;
    others are created when missing). ``user`` imports everything as that user's own (grants
    are then left out). What is there already is skipped, so importing twice changes nothing,
    and each document is written in one transaction. Runs on ``engine``, or the default
    engine."""
    from engramdb.archive.importer import import_store
    from engramdb.archive.reader import read_archive

    target = engine or _local("import")
    archive = read_archive(src)
    return await import_store(target, archive, user=user)


def _local(what: str) -> Engine:
    """The default engine; refused while connected to a server (the archive is read and
    written where the store is)."""
    from engramdb.engine import get_engine
    from engramdb.errors import FeatureNotAvailableError
    from engramdb.remote.switch import current_client

    if current_client() is not None:
        raise FeatureNotAvailableError(
            f"{what} runs where the store is, not over HTTP: run 'engramdb {what}' on the "
            "server's machine (or pass engine=engramdb.Engine(...) for a local store)"
        )
    return get_engine()
