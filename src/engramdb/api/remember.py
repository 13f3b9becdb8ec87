"""remember(): ingest texts, files and directories into a dataset."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engramdb.engine import Engine, get_engine
from engramdb.errors import FeatureNotAvailableError
from engramdb.ingest.chunkers import CsvChunker, resolve_chunker
from engramdb.ingest.loaders import load_inputs
from engramdb.ingest.pipeline import IngestOptions, ProgressCallback, data_id_for, ingest_documents
from engramdb.ingest.types import Chunker
from engramdb.models.records import User
from engramdb.models.results import RememberItem, RememberResult
from engramdb.validation import (
    validate_dataset_name,
    validate_external_metadata,
    validate_importance_weight,
    validate_node_set,
)

__all__ = ["remember"]

logger = logging.getLogger(__name__)

RememberInput = str | Path | Sequence[str | Path]


async def remember(
    data: RememberInput,
    dataset_name: str = "main_dataset",
    *,
    importance_weight: float = 0.5,
    session_id: str | None = None,
    self_improvement: bool = True,
    run_in_background: bool = False,
    node_set: list[str] | None = None,
    chunker: type[Chunker] | Chunker | None = None,
    external_metadata: dict[str, Any] | None = None,
    user: User | None = None,
) -> RememberResult:
    """Ingest ``data`` (a text, a list of texts, file paths or directories) into a dataset.

    Every input is checked before anything is written: a bad item fails the whole call with an
    EngramValidationError naming the fix. Content already in the dataset is skipped and keeps its
    stored weight. Each document is written in one transaction, so a crash never leaves half a
    document. With ``run_in_background=True`` the call returns at once with ``status="running"``;
    ``await result.wait()`` gives the finished result (or raises the run's error).
    """
    return await remember_with_progress(
        data,
        dataset_name,
        importance_weight=importance_weight,
        session_id=session_id,
        self_improvement=self_improvement,
        run_in_background=run_in_background,
        node_set=node_set,
        chunker=chunker,
        external_metadata=external_metadata,
        user=user,
    )


async def remember_with_progress(
    data: RememberInput,
    dataset_name: str = "main_dataset",
    *,
    importance_weight: float = 0.5,
    session_id: str | None = None,
    self_improvement: bool = True,
    run_in_background: bool = False,
    node_set: list[str] | None = None,
    chunker: type[Chunker] | Chunker | None = None,
    external_metadata: dict[str, Any] | None = None,
    user: User | None = None,
    progress: ProgressCallback | None = None,
    engine: Engine | None = None,
) -> RememberResult:
    """remember() with a progress callback (used by the CLI)."""
    weight = validate_importance_weight(importance_weight)
    name = validate_dataset_name(dataset_name)
    metadata = validate_external_metadata(external_metadata)
    tags = validate_node_set(node_set)
    if session_id is not None:
        raise FeatureNotAvailableError(
            "remember(session_id=...) stores session entries, which engramdb does not support "
            "yet; call remember() without session_id"
        )
    eng = engine or get_engine()
    settings = eng.settings
    resolved_chunker = resolve_chunker(
        chunker, max_tokens=settings.chunk_max_tokens, overlap_tokens=settings.chunk_overlap_tokens
    )
    docs = await asyncio.to_thread(load_inputs, data, max_file_bytes=settings.max_file_bytes)

    owner = await eng.resolve_user(user)
    dataset = await eng.store.get_or_create_dataset(owner.id, name)
    dataset = await eng.bind_embedding(dataset)
    options = IngestOptions(
        importance_weight=weight,
        chunker=resolved_chunker,
        external_metadata=metadata,
        node_set=tags,
        lock_timeout=settings.engramdb_lock_timeout,
        csv_chunker=CsvChunker(max_tokens=settings.chunk_max_tokens) if chunker is None else None,
        extractor=eng.extractor,
    )
    improve_note = "not_available" if self_improvement and settings.improve_auto_enabled else None

    async def run() -> RememberResult:
        result = await ingest_documents(
            eng.store, eng.embedder, dataset, docs, options, progress=progress
        )
        if improve_note:
            logger.debug("automatic improve after remember is not available yet; skipped")
        return result.model_copy(update={"improve": improve_note})

    if not run_in_background:
        return await run()
    task = asyncio.get_running_loop().create_task(run(), name=f"engramdb-remember-{dataset.id}")
    queued = {data_id_for(dataset.id, d.content_hash): d.name for d in docs}
    pending = RememberResult(
        status="running",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        data_ids=list(queued),
        items=[RememberItem(data_id=i, name=n, status="pending") for i, n in queued.items()],
    )
    pending._task = task
    return pending
