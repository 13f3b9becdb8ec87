"""search(): cognee's search over recall(), answering in cognee's plain result shapes."""

from __future__ import annotations

from typing import Any

from engramdb.api.recall import recall
from engramdb.api.unsupported import refuse_unsupported
from engramdb.engine import Engine
from engramdb.errors import EngramValidationError, InvalidCodeQueryError
from engramdb.models.requests import RecallRequest
from engramdb.models.requests.classic import COGNEE_DEFAULT_PROMPT, SearchRequest
from engramdb.models.results import RecallResponse, ResponseGraphEntry
from engramdb.models.search_type import SearchType

__all__ = ["legacy_results", "search"]

#: Kinds of graph entries that are retrieved items (cognee returns their payload dicts).
_PAYLOAD_KINDS = frozenset({"chunk", "summary", "cypher_row"})


async def search(engine: Engine, request: SearchRequest) -> list[Any]:
    """Search memory the way cognee's ``search()`` does, on recall's retrievers.

    The search type is pinned (no routing) and only the graph is read (with a ``session_id``
    the turn is recorded in that session, as with recall). What comes back is cognee's legacy
    shape, one item per result:

    * completion types (GRAPH_COMPLETION, RAG_COMPLETION, HYBRID_COMPLETION, ...): the answer
      strings; with ``only_context=True`` the context strings instead;
    * CHUNKS, CHUNKS_LEXICAL, SUMMARIES: one dict per hit (``id``, ``text``, ``score`` or
      ``bm25``, ``chunk_index``, ``document_name``, ``data_id``, ...); CYPHER: one dict per row;
    * CODE: one dict per dataset with a code graph, the operation's result (``code_query``
      picks the operation; see ``docs/code-graph.md``);
    * other retrieved facts (triplets, coding rules, temporal hits): their texts;
    * ``verbose=True``: one dict per result with ``text_result``, ``context_result`` and
      ``objects_result``.

    A dataset with nothing built yet gives ``[]`` (no warming-up marker: that is recall's).
    Completion types need an LLM (LLMNotConfiguredError otherwise, naming SearchType.CHUNKS);
    options engramdb does not honour raise FeatureNotAvailableError.
    """
    refuse_unsupported("search", request)
    r = request
    config = r.retriever_specific_config
    if r.code_query is not None:  # the reference merges code_query into the retriever config
        if r.query_type is not SearchType.CODE:
            raise InvalidCodeQueryError(
                "code_query requires query_type=SearchType.CODE (or recall with scope=['code'])"
            )
        config = {**(config or {}), **r.code_query}
    if r.skills is not None and r.query_type is not SearchType.AGENTIC_COMPLETION:
        raise EngramValidationError(
            "search(skills=...) applies only to query_type=SearchType.AGENTIC_COMPLETION"
        )
    if r.query_type is SearchType.AGENTIC_COMPLETION:  # the reference's agentic options
        agentic = {"skills": r.skills, "max_iter": r.max_iter}
        config = {**(config or {}), **{k: v for k, v in agentic.items() if v is not None}}
    datasets = [r.datasets] if isinstance(r.datasets, str) else r.datasets
    dataset_ids = (
        [r.dataset_ids]
        if r.dataset_ids is not None and not isinstance(r.dataset_ids, list)
        else r.dataset_ids
    )
    prompt_path = None if r.system_prompt_path == COGNEE_DEFAULT_PROMPT else r.system_prompt_path
    entries = await recall(
        engine,
        RecallRequest(
            query_text=r.query_text,
            query_type=r.query_type,
            datasets=datasets,
            dataset_ids=dataset_ids,
            top_k=r.top_k,
            auto_route=False,
            scope="graph",
            system_prompt=r.system_prompt,
            system_prompt_path=prompt_path,
            node_name=r.node_name,
            node_name_filter_operator=r.node_name_filter_operator,
            only_context=r.only_context,
            session_id=r.session_id,
            wide_search_top_k=r.wide_search_top_k,
            triplet_distance_penalty=r.triplet_distance_penalty,
            feedback_influence=r.feedback_influence,
            retriever_specific_config=config,
            include_references=r.include_references,
            user=r.user,
        ),
    )
    return legacy_results(entries, verbose=r.verbose)


def legacy_results(entries: list[RecallResponse], *, verbose: bool) -> list[Any]:
    """Recall's typed entries in cognee's legacy search shapes (see :func:`search`); entries
    that are not retrieved data (warming-up markers) are left out."""
    graph = [e for e in entries if isinstance(e, ResponseGraphEntry)]
    if verbose:
        return [
            {
                "text_result": e.text if e.kind == "answer" else None,
                "context_result": e.raw.get("context", e.text),
                "objects_result": _payload(e),
            }
            for e in graph
        ]
    return [_plain(e) for e in graph]


def _plain(entry: ResponseGraphEntry) -> Any:
    if entry.kind == "code":  # the operation's result dict, as the reference returns it
        return dict(entry.raw)
    if entry.kind in _PAYLOAD_KINDS:
        return _payload(entry)
    if entry.kind == "prompt":  # only_context: the context, not the prompt around it
        return entry.raw.get("context", entry.text)
    return entry.text


def _payload(entry: ResponseGraphEntry) -> dict[str, Any]:
    payload = {k: v for k, v in entry.raw.items() if k not in ("rank", "context")}
    payload.setdefault("text", entry.text)
    if entry.dataset_id is not None:
        payload.setdefault("dataset_id", str(entry.dataset_id))
    return payload
