"""remember(): ingest texts, files and directories into a dataset."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Sequence
from pathlib import Path
from uuid import UUID, uuid4

from engramdb.access.permissions import dataset_for_write
from engramdb.api.remember_skills import (
    remember_skill_files,
    remember_skill_run,
    wants_skill_input,
)
from engramdb.code.discover import code_only_roots, split_code_inputs
from engramdb.code.index import check_named_files
from engramdb.code.remember import merge_results, remember_code
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError
from engramdb.improvement.auto import (
    auto_improve_after_ingest,
    auto_improve_after_session_write,
    wants_auto_improve,
)
from engramdb.ingest.chunkers import CsvChunker, resolve_chunker
from engramdb.ingest.loaders import LoadedInputs, load_inputs
from engramdb.ingest.pipeline import (
    QUEUED,
    IngestOptions,
    ProgressCallback,
    data_id_for,
    ingest_documents,
)
from engramdb.ingest.queue import deferral_for, dequeue, queued, remember_queued
from engramdb.ingest.tables import TableOptions, settle_tables
from engramdb.models.records import Dataset, User
from engramdb.models.requests import RememberRequest
from engramdb.models.results import RememberItem, RememberResult
from engramdb.ontology import grounded_extractor, resolve_ontology
from engramdb.sessions.entries import (
    MEMORY_ENTRY_TYPES,
    FeedbackEntry,
    MemoryEntry,
    QAEntry,
    SkillRunEntry,
    TraceEntry,
)
from engramdb.sessions.validation import (
    validate_feedback_score,
    validate_feedback_text,
    validate_session_id,
)
from engramdb.sessions.writes import (
    check_feedback,
    write_feedback,
    write_note,
    write_qa,
    write_trace,
)
from engramdb.storage.lending import dataset_lock, lend_locks
from engramdb.validation import (
    validate_dataset_name,
    validate_external_metadata,
    validate_importance_weight,
    validate_node_set,
)

__all__ = ["remember", "remember_in_session"]

logger = logging.getLogger(__name__)

RememberInput = str | Path | Sequence[str | Path]


async def remember(
    engine: Engine, request: RememberRequest, *, progress: ProgressCallback | None = None
) -> RememberResult:
    """Ingest ``data`` (a text, a list of texts, file paths or directories) into a dataset.

    ``dataset_name`` is one of your own datasets (created if missing; another user's dataset of
    the same name is never touched), or the UUID of an existing dataset you own or hold a write
    grant on (PermissionDeniedError otherwise, the same for an unknown UUID).

    Every input is checked before anything is written: a bad item fails the whole call with an
    EngramValidationError naming the fix. Content already in the dataset is skipped and keeps its
    stored weight. Each document is written in one transaction, so a crash never leaves half a
    document. With ``run_in_background=True`` the call returns at once with ``status="running"``;
    ``await result.wait()`` gives the finished result (or raises the run's error).

    With ``session_id`` the data goes to that session of the user instead of the graph: each text
    becomes a session note (``status="session_stored"``), and a typed entry (``QAEntry``,
    ``TraceEntry``, ``FeedbackEntry``) is stored as what it is. See :mod:`engramdb.api.session`.
    ``progress`` (in-process callers such as the CLI) is called as chunks are written.
    """
    r = request
    data, dataset_name, session_id, user = r.data, r.dataset_name, r.session_id, r.user
    importance_weight, node_set, chunker = r.importance_weight, r.node_set, r.chunker
    external_metadata, self_improvement = r.external_metadata, r.self_improvement
    run_in_background = r.run_in_background
    weight = validate_importance_weight(importance_weight)
    # A UUID names an existing dataset and needs write permission (engramdb.access); a name is
    # owner-scoped: the caller's own dataset, created if missing.
    target = r.dataset_id or dataset_name
    name = target if isinstance(target, UUID) else validate_dataset_name(target)
    metadata = validate_external_metadata(external_metadata)
    tags = validate_node_set(node_set)
    if wants_skill_input(r):  # skills and skill runs belong to the dataset (api.skill_runs)
        if isinstance(data, SkillRunEntry):
            return await remember_skill_run(engine, r)
        return await remember_skill_files(engine, r)
    code_only = r.content_type == "code"
    if code_only and session_id is not None:
        raise EngramValidationError(
            "session_id does not apply to content_type='code': the code graph is part of the "
            "dataset, not a session; drop session_id"
        )
    if session_id is not None or isinstance(data, MEMORY_ENTRY_TYPES):
        return await remember_in_session(engine, request)
    eng = engine
    settings = eng.settings
    max_tokens = r.chunk_size or settings.chunk_max_tokens
    resolved_chunker = resolve_chunker(
        chunker, max_tokens=max_tokens, overlap_tokens=settings.chunk_overlap_tokens
    )
    extractor = grounded_extractor(
        eng.extractor_for(r.custom_prompt, r.graph_model),
        *resolve_ontology(r.config, None, settings),
    )
    # Source files go to the code graph (engramdb.code); everything else loads as before.
    if code_only:
        code_roots, rest = await asyncio.to_thread(code_only_roots, data), None
    else:
        code_roots, rest = await asyncio.to_thread(split_code_inputs, data)
    await asyncio.to_thread(check_named_files, code_roots)
    tables = TableOptions(r.primary_key, r.write_disposition, r.max_rows_per_table)
    docs = (
        await asyncio.to_thread(
            load_inputs, rest, max_file_bytes=settings.max_file_bytes, tables=tables
        )
        if rest is not None
        else LoadedInputs([])
    )

    owner = await eng.resolve_user(user)
    dataset = await dataset_for_write(eng.store, owner, name)
    dataset = await eng.bind_embedding(dataset)
    options = IngestOptions(
        importance_weight=weight,
        chunker=resolved_chunker,
        external_metadata=metadata,
        node_set=tags,
        lock_timeout=settings.engramdb_lock_timeout,
        csv_chunker=CsvChunker(max_tokens=max_tokens) if chunker is None else None,
        extractor=extractor,
        rebuild=not r.incremental_loading,
    )
    auto = wants_auto_improve(eng, self_improvement)
    if r.custom_prompt is None and r.graph_model is None and r.config is None and not code_only:
        # small calls may queue their extraction to share LLM calls (engramdb.ingest.queue)
        defer = deferral_for(eng, owner, dataset, improve=auto)
        options = dataclasses.replace(options, defer=defer)

    # A background run announces its id now; the run it records (and its result) keep it.
    run_id = uuid4() if run_in_background else None

    async def run() -> RememberResult:
        if not auto or not docs or code_roots or docs.tables:
            return await ingest()
        # The automatic improve follows under the lock the ingest took (not released and
        # taken again); a queued extraction's improve runs later, after the lock is released.
        lock_name = dataset_lock(dataset.id)
        async with contextlib.AsyncExitStack() as held:
            await held.enter_async_context(eng.store.lock(lock_name, timeout=options.lock_timeout))
            with lend_locks(eng.store, lock_name):
                result = await ingest(queued_improve=False)
            if not result.counts.get(QUEUED):
                status = await auto_improve_after_ingest(eng, owner, dataset, holding_lock=True)
                return result.model_copy(update={"improve": status})
        return await remember_queued(eng, dataset, result)

    async def ingest(*, queued_improve: bool = True) -> RememberResult:
        """Ingest (and the queued or automatic improve when ``queued_improve``)."""
        result = None
        if docs or not code_roots:
            result = await ingest_documents(
                eng.store, eng.embedder, dataset, docs, options, progress=progress, run_id=run_id
            )
            if options.rebuild:
                await _dequeue_rebuilt(eng, dataset, result)
            if docs.tables:
                async with eng.store.lock(dataset_lock(dataset.id), timeout=options.lock_timeout):
                    await settle_tables(eng.store, dataset.id, docs.tables)
        if code_roots:
            code = await remember_code(
                eng.store,
                dataset,
                code_roots,
                weight=weight,
                metadata=metadata or {},
                node_set=tags or [],
                lock_timeout=settings.engramdb_lock_timeout,
                record_run=result is None,  # code alone: its run is this remember()'s
                run_id=run_id,
            )
            result = merge_results(result, code)
        if result is None:  # unreachable: no code means the documents were ingested
            raise RuntimeError("remember() produced no result")
        if not queued_improve:
            return result
        if result.counts.get(QUEUED):  # the automatic improve follows the queued extraction
            return await remember_queued(eng, dataset, result)
        if not auto or not docs:
            return result
        status = await auto_improve_after_ingest(eng, owner, dataset)
        return result.model_copy(update={"improve": status})

    if not run_in_background:
        return await run()
    task = eng.spawn(run(), name=f"engramdb-remember-{dataset.id}")
    pending_names = {data_id_for(dataset.id, d.content_hash): d.name for d in docs}
    pending = RememberResult(
        status="running",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        run_id=run_id,
        data_ids=list(pending_names),
        items=[RememberItem(data_id=i, name=n, status="pending") for i, n in pending_names.items()],
    )
    pending._task = task
    return pending


async def _dequeue_rebuilt(eng: Engine, dataset: Dataset, result: RememberResult) -> None:
    """``incremental_loading=False``: a rebuilt document whose old copy waited in the extraction
    queue (:mod:`engramdb.ingest.queue`) and that was extracted now leaves the queue."""
    extracted = [i.data_id for i in result.items if i.status == "ingested" and i.reason != QUEUED]
    if not extracted or not await queued(eng.store, dataset.id):
        return
    async with eng.store.lock(dataset_lock(dataset.id), timeout=eng.settings.engramdb_lock_timeout):
        await dequeue(eng.store, dataset.id, extracted)


async def remember_in_session(engine: Engine, request: RememberRequest) -> RememberResult:
    """remember() into a session: notes from texts, or one typed entry. Nothing enters the graph
    (improve(session_ids=...) bridges sessions later); ``status`` is "session_stored"."""
    r = request
    data, dataset_name, session_id, user = r.data, r.dataset_name, r.session_id, r.user
    if isinstance(data, SkillRunEntry):  # remember() stores runs in the dataset
        return await remember_skill_run(engine, request)
    importance_weight, node_set = r.importance_weight, r.node_set
    external_metadata, self_improvement = r.external_metadata, r.self_improvement
    validate_importance_weight(importance_weight)
    # A UUID names an existing dataset and needs write permission (engramdb.access); a name is
    # owner-scoped: the caller's own dataset, created if missing.
    target = r.dataset_id or dataset_name
    name = target if isinstance(target, UUID) else validate_dataset_name(target)
    validate_external_metadata(external_metadata)
    validate_node_set(node_set)
    if session_id is None:
        raise EngramValidationError(
            f"a {type(data).__name__} is a session entry: pass session_id=... to remember() "
            "to say which session it belongs to"
        )
    sid = validate_session_id(session_id)
    texts = _check_session_input(data)  # everything is checked before anything is written
    eng = engine
    owner = await eng.resolve_user(user)
    dataset = await dataset_for_write(eng.store, owner, name)
    result = RememberResult(
        status="session_stored",
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        session_id=sid,
    )
    stored = await _store_session_input(eng, owner, dataset, sid, data, texts, result)
    if not wants_auto_improve(eng, self_improvement) or stored.entry_type == "feedback":
        return stored
    count = max(1, len(stored.entry_ids or []))
    status = await auto_improve_after_session_write(eng, owner, dataset, sid, count)
    return stored.model_copy(update={"improve": status})


async def _store_session_input(
    eng: Engine,
    owner: User,
    dataset: Dataset,
    sid: str,
    data: RememberInput | MemoryEntry,
    texts: list[str],
    result: RememberResult,
) -> RememberResult:
    if isinstance(data, QAEntry):
        qa = await write_qa(
            eng.store,
            owner,
            sid,
            data.question,
            data.answer,
            context=data.context,
            feedback_score=data.feedback_score,
            feedback_text=data.feedback_text,
            used_graph_element_ids=data.used_graph_element_ids,
            dataset_ids=[dataset.id],
        )
        return _with_entries(result, "qa", [str(qa.id)])
    if isinstance(data, TraceEntry):
        step = await write_trace(
            eng.store,
            owner,
            sid,
            data.origin_function,
            status=data.status,
            method_params=data.method_params,
            method_return_value=data.method_return_value,
            error_message=data.error_message,
            memory_query=data.memory_query,
            memory_context=data.memory_context,
            session_feedback=data.session_feedback,
        )
        return _with_entries(result, "trace", [str(step.id)])
    if isinstance(data, FeedbackEntry):
        await write_feedback(
            eng.store, owner, sid, data.qa_id, data.feedback_score, data.feedback_text
        )
        return result.model_copy(update={"entry_type": "feedback", "entry_id": data.qa_id})
    notes = [await write_note(eng.store, owner, sid, text, dataset.id) for text in texts]
    return _with_entries(result, "qa", [str(n.id) for n in notes])


def _with_entries(result: RememberResult, kind: str, ids: list[str]) -> RememberResult:
    return result.model_copy(
        update={
            "entry_type": kind,
            "entry_ids": ids,
            "entry_id": ids[0] if len(ids) == 1 else None,
        }
    )


def _check_session_input(data: object) -> list[str]:
    """Validate a session write up front; the texts of a note write ([] for a typed entry)."""
    if isinstance(data, QAEntry):
        validate_feedback_score(data.feedback_score)
        validate_feedback_text(data.feedback_text)
        return []
    if isinstance(data, FeedbackEntry):
        check_feedback(data.qa_id, data.feedback_score, data.feedback_text)
        return []
    if isinstance(data, TraceEntry):
        if not data.origin_function.strip():
            raise EngramValidationError("TraceEntry.origin_function must name the function")
        return []
    return _session_texts(data)


def _session_texts(data: object) -> list[str]:
    """The texts of a session write: a string or a list of strings (files are refused)."""
    items = [data] if isinstance(data, str | Path) else data
    if not isinstance(items, Sequence) or not items:
        raise EngramValidationError(
            "remember(..., session_id=...) stores text: pass a string or a list of strings"
        )
    texts = []
    for item in items:
        if not isinstance(item, str):
            raise EngramValidationError(
                f"remember(..., session_id=...) stores text, got {type(item).__name__}; files "
                "go into the graph: call remember() without session_id for them"
            )
        if item.strip():
            texts.append(item)
    if not texts:
        raise EngramValidationError("remember(..., session_id=...) got only empty text")
    return texts
