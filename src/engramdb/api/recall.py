"""recall(): retrieve (and answer) from memory and from the session.

The whole keyword surface of the reference is accepted and validated here; search types that
engramdb does not implement yet raise FeatureNotAvailableError naming the type.

Lanes run in the order the scope expands to (see :mod:`engramdb.retrieval.scopes`). With a
``session_id``: the session / trace / session_context lanes read the caller's own session
(:mod:`engramdb.sessions.lanes`); the graph lane first lets AUTO_FEEDBACK analyse the message
(:mod:`engramdb.sessions.feedback`), puts the conversation so far into completion prompts, and
after it succeeded records the turn as a Q&A entry (:mod:`engramdb.sessions.recording`; a failed
write is logged, never raised). ``only_context=True`` writes nothing to the session.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel

from engramdb.access.permissions import check, own_dataset, readable_datasets
from engramdb.code.lane import check_code_query, run_code_lane
from engramdb.engine import Engine
from engramdb.errors import (
    ConfigurationError,
    DatasetNotFoundError,
    EngramValidationError,
    InvalidCodeQueryError,
    InvalidHybridSearchConfig,
    RecallPreconditionError,
)
from engramdb.ingest.queue import extract_for_read, reads_graph
from engramdb.models.records import Dataset, User
from engramdb.models.requests import RecallRequest
from engramdb.models.results import RecallResponse, ResponseQAEntry
from engramdb.models.search_type import SearchType
from engramdb.personalization.lookup import load_preferences
from engramdb.providers.embedding.base import Embedder
from engramdb.providers.llm.base import LLM
from engramdb.retrieval.base import RecallOptions, RetrievalContext, refuse_ignored_node_name
from engramdb.retrieval.dispatch import run_graph_lane
from engramdb.retrieval.router import RouteDecision, resolve_search_type
from engramdb.retrieval.scopes import plan_scope
from engramdb.sessions import lanes as session_lanes
from engramdb.sessions.feedback import analyze_turn
from engramdb.sessions.recording import load_guidance, load_history, record_recall_turn
from engramdb.sessions.validation import validate_context_profile, validate_session_id
from engramdb.spelling import verb
from engramdb.tools import lane as tools_lane
from engramdb.validation import validate_uuid

__all__ = ["recall", "resolve_datasets"]

_PRECONDITION = (
    "Recall prerequisites not met: no database/default user found. "
    "Run {0} first to create the database and ingest data."
)


async def recall(engine: Engine, request: RecallRequest) -> list[RecallResponse]:
    """Query memory. See the reference's recall() documentation for every option.

    With a ``session_id`` the session lanes read the caller's own session of that id, completion
    prompts start with the conversation so far, and an answered turn is recorded as a Q&A entry
    (see ``docs/sessions.md``).

    Raises RecallPreconditionError before anything was ever ingested, DatasetNotFoundError for
    dataset names that do not resolve, ValueError for an unknown scope, and
    EngramValidationError (a ValueError) for any other bad argument.
    """
    r = request
    query_text, query_type, datasets, dataset_ids = (
        r.query_text,
        r.query_type,
        r.datasets,
        r.dataset_ids,
    )
    top_k, auto_route, scope, session_id = r.top_k, r.auto_route, r.scope, r.session_id
    node_name, node_name_filter_operator = r.node_name, r.node_name_filter_operator
    wide_search_top_k, triplet_distance_penalty = r.wide_search_top_k, r.triplet_distance_penalty
    feedback_influence, retriever_specific_config = (
        r.feedback_influence,
        r.retriever_specific_config,
    )
    code_query, response_model, context_profile = r.code_query, r.response_model, r.context_profile
    system_prompt, system_prompt_path = r.system_prompt, r.system_prompt_path
    only_context, verbose, include_references = r.only_context, r.verbose, r.include_references
    user, llm_config, embedding_config = r.user, r.llm_config, r.embedding_config
    query = _check_query(query_text, engine.settings.max_query_chars)
    pinned = query_type
    if session_id is not None:
        session_id = validate_session_id(session_id)
    plan = plan_scope(
        scope,
        session_id=session_id,
        explicit_type=pinned is not None,
        dataset_scoped=datasets is not None or dataset_ids is not None,
    )
    lanes = plan.lanes
    _check_options(
        lanes=lanes,
        code_query=code_query,
        response_model=response_model,
        retriever_specific_config=retriever_specific_config,
        system_prompt_path=system_prompt_path,
    )
    if not await engine.database_exists():
        raise RecallPreconditionError(_PRECONDITION, [verb("remember")])
    await engine.ensure_setup()
    owner = await engine.resolve_user(user)

    code_targets: list[Dataset] | None = None
    if "code" in lanes:  # the code graph (engramdb.code.lane); names resolve as for graph
        check_code_query(code_query)
        code_targets = await resolve_datasets(
            engine, owner, datasets=datasets, dataset_ids=dataset_ids
        )
    if "tools" in lanes:
        tools_lane.check_tools_enabled(engine.settings)
        lanes = tools_lane.order_lanes(lanes, r.tools_trigger)
    graph: _GraphLane | None = None
    if "graph" in lanes:
        decision = resolve_search_type(
            query,
            query_type=pinned,
            auto_route=auto_route,
            llm_available=engine.settings.llm_configured,
        )
        search_type = decision.search_type
        if search_type is SearchType.HYBRID_COMPLETION and feedback_influence:
            # recall.md: "A hybrid request that defers to GRAPH_COMPLETION (for example with
            # neighborhood_depth or feedback_influence set) reports search_type=GRAPH_COMPLETION
            # and does carry metadata.evidence."
            search_type = SearchType.GRAPH_COMPLETION
        if search_type is SearchType.HYBRID_COMPLETION and (
            wide_search_top_k is not None or triplet_distance_penalty is not None
        ):
            raise InvalidHybridSearchConfig(
                "wide_search_top_k and triplet_distance_penalty apply to graph retrieval only, and "
                "this recall runs HYBRID_COMPLETION; pass a graph-family query_type such as "
                "SearchType.GRAPH_COMPLETION, or drop those options"
            )
        if node_name:
            refuse_ignored_node_name(engine.retrievers.get(search_type), search_type)
        targets = await resolve_datasets(engine, owner, datasets=datasets, dataset_ids=dataset_ids)
        if reads_graph(search_type, decision.routed):  # no graph silently missing a document
            await extract_for_read(engine, targets)
        config = dict(retriever_specific_config or {})
        if response_model is not None:
            config["response_model"] = response_model
        model = config.get("response_model")
        ctx = RetrievalContext(
            store=engine.store,
            embedder=_embedder_for_call(engine, embedding_config),
            llm=_llm_for_call(engine, llm_config),
            settings=engine.settings,
            datasets=targets,
            user=owner,
            retrievers=engine.retrievers,
            warmup=engine.warmup_cache,
        )
        opts = RecallOptions(
            query=query,
            search_type=search_type,
            top_k=top_k,
            only_context=only_context,
            system_prompt=_system_prompt(system_prompt, system_prompt_path),
            node_name=node_name,
            node_name_filter_operator=node_name_filter_operator,
            wide_search_top_k=wide_search_top_k,
            triplet_distance_penalty=triplet_distance_penalty,
            feedback_influence=float(feedback_influence),
            verbose=verbose,
            retriever_specific_config=config,
            response_model=model if isinstance(model, type) else None,
            include_references=include_references,
            session_id=session_id,
        )
        graph = _GraphLane(ctx=ctx, opts=opts, decision=decision)

    store = engine.store
    results: list[RecallResponse] = []
    for lane in lanes:
        if lane == "tools":
            if r.tools_trigger == "on_empty" and results:
                continue  # the other sources answered: the databases are not asked
            results.extend(
                await tools_lane.run_tools_lane(
                    engine, owner, _llm_for_call(engine, llm_config), query, r.tool_connections
                )
            )
        elif lane == "graph" and graph is not None:
            if plan.short_circuit and any(isinstance(r, ResponseQAEntry) for r in results):
                continue  # a session hit answers: the graph search is skipped
            results.extend(await _run_graph_lane(owner, graph, lanes=lanes))
        elif lane == "code" and code_targets is not None:
            results.extend(await run_code_lane(store, code_targets, query, code_query))
        elif session_id is None:
            continue  # session lanes read a session; without one they contribute nothing
        elif lane == "session":
            results.extend(
                await session_lanes.search_session(store, owner, session_id, query, top_k)
            )
        elif lane == "trace":
            results.extend(
                await session_lanes.search_traces(store, owner, session_id, query, top_k)
            )
        elif lane == "session_context":
            profile = validate_context_profile(context_profile)
            results.extend(await session_lanes.session_context(store, owner, session_id, profile))
    return results


@dataclass(slots=True)
class _GraphLane:
    """What the graph lane runs with, validated before any lane runs."""

    ctx: RetrievalContext
    opts: RecallOptions
    decision: RouteDecision


async def _run_graph_lane(
    owner: User, graph: _GraphLane, *, lanes: list[str]
) -> list[RecallResponse]:
    """The graph lane; with a session: turn analysis first, history in the prompt, and the turn
    recorded after success (never with only_context)."""
    ctx, opts = graph.ctx, graph.opts
    session_id = opts.session_id
    writes = session_id is not None and not opts.only_context
    if session_id is not None:
        if writes:
            await analyze_turn(
                ctx.store,
                ctx.llm,
                ctx.settings,
                user=owner,
                session_id=session_id,
                message=opts.query,
            )
        history = await load_history(ctx.store, owner, session_id)
        if history:
            opts = dataclasses.replace(opts, history=history)
        if ctx.settings.auto_feedback:  # the reference serves session guidance with it only
            block, served = await load_guidance(ctx.store, owner, session_id)
            if block:
                opts = dataclasses.replace(
                    opts, session_guidance=block, session_guidance_ids=tuple(served)
                )
    preferences = await load_preferences(ctx.store, ctx.settings, owner.id, ctx.dataset_ids)
    if not preferences.empty:  # personalization (fail-open; off, multi-dataset: empty)
        opts = dataclasses.replace(opts, preferences=preferences)
    results = await run_graph_lane(ctx, opts, graph.decision, lanes=lanes)
    if writes and session_id is not None:
        await record_recall_turn(
            ctx.store,
            user=owner,
            session_id=session_id,
            question=opts.query,
            results=results,
            search_type=_reported_type(results, opts.search_type),
            datasets=ctx.datasets,
        )
    return results


def _reported_type(results: list[RecallResponse], fallback: SearchType) -> str:
    """The search type that answered (a routed type may have been retried as hybrid)."""
    for result in results:
        search_type = getattr(result, "search_type", None)
        if isinstance(search_type, str) and getattr(result, "source", None) == "graph":
            return search_type
    return fallback.value


def _check_query(query_text: object, max_chars: int) -> str:
    if not isinstance(query_text, str):
        raise EngramValidationError(f"query_text must be a string, got {type(query_text).__name__}")
    if not query_text.strip():
        raise EngramValidationError("query_text is empty; ask a question, e.g. 'Who is Alice?'")
    if len(query_text) > max_chars:
        raise EngramValidationError(
            f"query_text is {len(query_text)} characters; the limit is {max_chars} "
            "(MAX_QUERY_CHARS). Shorten the question or search for its key phrase."
        )
    return query_text


def _check_options(
    *,
    lanes: list[str],
    code_query: object,
    response_model: object,
    retriever_specific_config: Mapping[str, Any] | None,
    system_prompt_path: object,
) -> None:
    """The checks that depend on more than one option (each option's own type and limits are
    checked by :class:`~engramdb.models.requests.RecallRequest`)."""
    if code_query is not None and "code" not in lanes:
        raise InvalidCodeQueryError(
            "code_query is only valid when scope includes 'code', e.g. scope=['graph', 'code']"
        )
    config_model = (retriever_specific_config or {}).get("response_model")
    if (
        response_model is not None
        and config_model is not None
        and config_model is not (response_model)
    ):
        raise EngramValidationError(
            "response_model and retriever_specific_config['response_model'] name different "
            "classes; pass the model in one place"
        )
    if system_prompt_path is not None and not Path(str(system_prompt_path)).is_file():
        raise EngramValidationError(
            f"system_prompt_path {system_prompt_path!r} is not a readable file"
        )


async def resolve_datasets(
    engine: Engine,
    owner: User,
    *,
    datasets: Sequence[str] | None,
    dataset_ids: Sequence[UUID | str] | None,
) -> list[Dataset]:
    """The datasets a graph lane searches: ``dataset_ids`` (no name lookup; each needs read
    permission through :func:`engramdb.access.check`, PermissionDeniedError otherwise -- the same
    for unknown ids), else names resolved strictly against the owner's own datasets, else every
    dataset the user can read (owned, then granted ``read``)."""
    store = engine.store
    if dataset_ids is not None:
        if isinstance(dataset_ids, str | UUID):
            raise EngramValidationError("dataset_ids must be a list of dataset UUIDs")
        found: list[Dataset] = []
        for raw in dict.fromkeys(dataset_ids):
            dataset_id = validate_uuid(raw, "dataset_ids entry")
            readable = await check(owner, dataset_id, "read", store=store)
            if readable not in found:
                found.append(readable)
        return found
    if datasets is not None:
        if isinstance(datasets, str) or not all(isinstance(n, str) for n in datasets):
            raise EngramValidationError("datasets must be a list of dataset names")
        resolved, missing = [], []
        for name in dict.fromkeys(datasets):
            dataset = await own_dataset(store, owner, name)
            if dataset is None:
                missing.append(name)
            else:
                resolved.append(dataset)
        if missing:
            raise DatasetNotFoundError(
                f"datasets not found: {', '.join(repr(m) for m in missing)}; check the names "
                "(they are case-sensitive and owner-scoped) or use dataset_ids for shared datasets",
                missing=missing,
            )
        return resolved
    return await readable_datasets(store, owner)


def _embedder_for_call(engine: Engine, embedding_config: Mapping[str, Any] | None) -> Embedder:
    if not embedding_config:
        return engine.embedder
    from engramdb.providers.embedding.factory import build_embedder

    if not isinstance(embedding_config, Mapping):
        raise ConfigurationError("embedding_config must be a dict of EMBEDDING_* settings")
    update = {k.lower(): v for k, v in embedding_config.items()}
    unknown = [k for k in update if not k.startswith("embedding_")]
    if unknown:
        raise ConfigurationError(
            f"embedding_config accepts only embedding_* settings, got {unknown}"
        )
    data = engine.settings.model_dump()
    data.update(update)
    settings = type(engine.settings).model_validate(data)
    return build_embedder(settings)


def _system_prompt(system_prompt: str | None, system_prompt_path: str | None) -> str | None:
    if system_prompt is not None or system_prompt_path is None:
        return system_prompt
    try:
        return Path(system_prompt_path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EngramValidationError(
            f"cannot read system_prompt_path {system_prompt_path!r}: {exc}"
        ) from exc


def _llm_for_call(engine: Engine, llm_config: Mapping[str, Any] | BaseModel | None) -> LLM | None:
    """The LLM of one recall: the engine's, or one built from ``llm_config`` over the settings —
    a dict of LLM_* settings, or an object of them such as cognee's ``LLMConfig`` (its llm_*
    fields that are set and that engramdb has; an object always carries every field, so the
    others are its defaults, not the caller's choice)."""
    if not llm_config:
        return engine.llm
    from engramdb.providers.llm.factory import build_llm

    if isinstance(llm_config, BaseModel):
        known = type(engine.settings).model_fields
        llm_config = {
            k: v
            for k, v in llm_config.model_dump().items()
            if k.startswith("llm_") and k in known and v not in (None, "")
        }
    if not isinstance(llm_config, Mapping):
        raise ConfigurationError("llm_config must be a dict (or an object) of LLM_* settings")
    update = {k.lower(): v for k, v in llm_config.items()}
    unknown = [k for k in update if not k.startswith("llm_")]
    if unknown:
        raise ConfigurationError(f"llm_config accepts only llm_* settings, got {unknown}")
    data = engine.settings.model_dump()
    data.update(update)
    return build_llm(type(engine.settings).model_validate(data))
