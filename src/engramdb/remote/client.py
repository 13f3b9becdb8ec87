"""The HTTP client behind remote mode: one method per SDK verb, same results as in-process.

Each method takes the verb's bound arguments (``inspect.BoundArguments.arguments`` of the local
function, defaults applied) so the signatures can never drift apart: the switch in
:mod:`engramdb.remote.switch` binds against the local function and hands the result here.

What cannot cross HTTP is refused with a message saying so: ``user=`` (the API key decides the
user), custom chunker classes or instances, typed session entries, ``llm_config`` /
``embedding_config`` (the server uses its own providers). ``response_model`` travels as its JSON
schema (``response_schema``); the server rebuilds a validation model from it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any
from uuid import UUID

import httpx
from pydantic import BaseModel, TypeAdapter

from engramdb.errors import (
    EngramValidationError,
    FeatureNotAvailableError,
    NotFoundError,
)
from engramdb.models.requests import (
    ImproveRequest,
    RecallRequest,
    RememberRequest,
)
from engramdb.models.requests.access import CreateApiKeyRequest
from engramdb.models.requests.classic import AddRequest, CognifyRequest
from engramdb.models.requests.graph import (
    GetGraphRequest,
    RememberSkillsRequest,
    VisualizeGraphRequest,
)
from engramdb.remote.errors import RemoteUnavailableError, error_from_response
from engramdb.verbs.spec import Verb

__all__ = ["HttpClient", "RemoteClient"]


_POLL_FIRST, _POLL_MAX = 0.05, 1.0
_BUILTIN_CHUNKERS = ("TextChunker", "TextChunkerWithOverlap", "CsvChunker")


@functools.cache
def _recall_adapter() -> TypeAdapter[list[Any]]:
    from engramdb.models.results import RecallResponse

    return TypeAdapter(list[RecallResponse])


class HttpClient:
    """Talks to one engramdb server with one API key."""

    def __init__(self, url: str, api_key: str | None, *, timeout: float = 300.0) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise EngramValidationError(
                f"serve() needs the server's http(s) URL, e.g. 'http://localhost:8000', got {url!r}"
            )
        self.url = url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        # One connection pool per event loop: an httpx client must not cross loops.
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )

    # -- transport -------------------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        client = self._pools.get(loop)
        if client is None or client.is_closed:
            client = httpx.AsyncClient(
                base_url=self.url, headers=self._headers, timeout=self._timeout
            )
            self._pools[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the connection pool of the running loop (others are dropped with their loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        client = self._pools.pop(loop, None)
        if client is not None:
            await client.aclose()

    async def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Send one request; the decoded JSON body, or the error the problem document names."""
        try:
            response = await self._http().request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise RemoteUnavailableError(
                f"cannot reach the engramdb server at {self.url}: {type(exc).__name__}; check "
                "the URL given to serve() and that 'engramdb serve' is running"
            ) from exc
        if response.status_code >= 400:
            raise error_from_response(response)
        if response.status_code == 204 or not response.content:
            return None
        return response.json()

    async def check(self) -> dict[str, Any]:
        """Verify the server answers and the key is valid; the user it belongs to."""
        await self.request("GET", "/health")
        me = await self.request("GET", "/api/v1/users/me")
        assert isinstance(me, dict)
        return me

    # -- verbs -----------------------------------------------------------------------------

    async def call(self, verb: Verb[Any, Any], request: Any) -> Any:
        """Run ``verb`` with its validated request (the :class:`~engramdb.client.Client`
        interface): the request's wire payload goes to the verb's route."""
        if getattr(request, "user", None) is not None:
            raise EngramValidationError(
                f"{verb.name}(user=...) is not available in remote mode: the server runs every "
                "call as the user of the API key given to serve(); drop user= or call disconnect()"
            )
        refused = [n for n in request.non_default_local() if n not in verb.encoded_locals]
        if refused:
            raise EngramValidationError(
                f"{verb.name}(): {', '.join(refused)} cannot be sent to a remote server (it "
                "uses its own providers and reads no client objects); drop "
                f"{'it' if len(refused) == 1 else 'them'}, or call disconnect() to run in-process"
            )
        custom = getattr(self, f"_{verb.name}", None)
        if custom is not None:
            return await custom(request)
        return await self.send(verb, request)

    async def send(self, verb: Verb[Any, Any], request: Any) -> Any:
        """The verb's route with the request's wire payload: options named in the path go
        there, the others into the JSON body (POST) or the query string; the answer decoded
        as the verb's result."""
        http = verb.http
        if http is None:
            raise FeatureNotAvailableError(
                f"{verb.name}() is not available in remote mode; call engramdb.disconnect() to "
                "run it in-process"
            )
        payload = request.wire_payload()
        if verb.dataset_field is not None:
            payload = _dataset_ref(
                payload, verb.dataset_field, getattr(request, verb.dataset_field)
            )
        path = http.path
        for name in http.path_fields:
            path = path.replace(f"{{{name}}}", _segment(str(payload.pop(name))))
        ready = _json_ready(payload)
        try:
            if http.has_body:
                body = await self.request(http.method, path, json=ready)
            else:
                body = await self.request(http.method, path, params=ready)
        except NotFoundError:
            if http.none_on_404:
                return None  # unknown or not readable: None, as in-process
            raise
        if http.status == 204:
            return None
        return verb.result_adapter.validate_python(body)

    async def close(self) -> None:
        await self.aclose()

    async def _remember(self, req: RememberRequest) -> Any:
        from engramdb.models.results import RememberResult

        data = req.data
        if isinstance(data, BaseModel):
            raise FeatureNotAvailableError(
                "remembering a typed session entry is not available in remote mode yet"
            )
        from engramdb.migration.base import MemorySource

        items = data if isinstance(data, list | tuple) else [data]
        if any(isinstance(item, MemorySource) for item in items):
            raise FeatureNotAvailableError(
                "importing another memory system's export (engramdb.migration) runs on a local "
                "engine only: run the import where the store is, or remember() the export's texts"
            )
        fields = req.wire_payload()
        fields["chunker"] = _chunker_name(req.chunker)
        dataset = req.dataset_name
        if isinstance(dataset, UUID):
            fields.pop("dataset_name")
            fields["dataset_id"] = str(dataset)
        fields = {k: v for k, v in fields.items() if v is not None and k != "data"}
        texts, files = _split_inputs(data)
        if files:
            form: dict[str, Any] = {k: _form_value(v) for k, v in fields.items() if k != "node_set"}
            parts: list[tuple[str, Any]] = [("texts", (None, t.encode("utf-8"))) for t in texts]
            parts += [("node_set", (None, tag.encode("utf-8"))) for tag in req.node_set or []]
            for name, path in files:
                parts.append(("files", (name, path.read_bytes())))
            body = await self.request("POST", "/api/v1/remember", data=form, files=parts)
        else:
            fields["data"] = data if isinstance(data, str) else list(texts)
            body = await self.request("POST", "/api/v1/remember", json=fields)
        result = RememberResult.model_validate(body)
        if result.status == "running" and result.run_id is not None:
            result._task = asyncio.get_running_loop().create_task(
                self._finish_remember(result.run_id)
            )
        return result

    async def _add(self, req: AddRequest) -> Any:
        """Texts go as JSON; files (directories expanded) are read here and uploaded."""
        from engramdb.models.results import RememberResult

        fields = {k: v for k, v in req.wire_payload().items() if v is not None and k != "data"}
        texts, files = _split_inputs(req.data)
        if files:
            form = {k: _form_value(v) for k, v in fields.items() if k != "node_set"}
            parts: list[tuple[str, Any]] = [("texts", (None, t.encode("utf-8"))) for t in texts]
            parts += [("node_set", (None, tag.encode("utf-8"))) for tag in req.node_set or []]
            parts += [("files", (name, path.read_bytes())) for name, path in files]
            body = await self.request("POST", "/api/v1/add", data=form, files=parts)
        else:
            fields["data"] = req.data if isinstance(req.data, str) else list(texts)
            body = await self.request("POST", "/api/v1/add", json=_json_ready(fields))
        return RememberResult.model_validate(body)

    async def _cognify(self, req: CognifyRequest) -> dict[UUID, Any]:
        """Dataset names and ids travel apart; a background build is polled like remember's."""
        from engramdb.models.results import RememberResult

        payload = req.wire_payload()
        refs = req.datasets
        items = [] if refs is None else [refs] if isinstance(refs, str | UUID) else list(refs)
        payload["datasets"] = [r for r in items if not isinstance(r, UUID)] or None
        payload["dataset_ids"] = [str(r) for r in items if isinstance(r, UUID)] or None
        payload["chunker"] = _chunker_name(req.chunker)
        body = await self.request("POST", "/api/v1/cognify", json=_json_ready(payload))
        results: dict[UUID, Any] = {}
        for key, document in body.items():
            result = RememberResult.model_validate(document)
            if result.status == "running" and result.run_id is not None:
                result._task = asyncio.get_running_loop().create_task(
                    self._finish_remember(result.run_id)
                )
            results[UUID(key)] = result
        return results

    async def _finish_remember(self, run_id: UUID) -> Any:
        from engramdb.models.results import RememberResult

        return RememberResult.model_validate(await self._wait_run(run_id))

    async def _wait_run(self, run_id: UUID) -> dict[str, Any]:
        """Poll a background run until it finished; its result document (or its error)."""
        delay = _POLL_FIRST
        while True:
            run = await self.request("GET", f"/api/v1/runs/{run_id}")
            if run["status"] != "running":
                if run.get("error"):
                    problem = run["error"]
                    raise error_from_response(
                        httpx.Response(
                            int(problem.get("status", 500)),
                            json=problem,
                            request=httpx.Request("GET", f"{self.url}/api/v1/runs/{run_id}"),
                        )
                    )
                result = run.get("result")
                assert isinstance(result, dict)
                return result
            await asyncio.sleep(delay)
            delay = min(delay * 2, _POLL_MAX)

    async def _recall(self, req: RecallRequest) -> list[Any]:
        payload = req.wire_payload()
        config = dict(req.retriever_specific_config or {})
        model = req.response_model
        config_model = config.pop("response_model", None)
        if model is not None and config_model is not None and config_model is not model:
            raise EngramValidationError(
                "response_model and retriever_specific_config['response_model'] name different "
                "classes; pass the model in one place"
            )
        model = model or config_model
        if model is not None and not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise EngramValidationError("response_model must be a pydantic BaseModel subclass")
        payload["retriever_specific_config"] = config or None
        payload["response_schema"] = None if model is None else model.model_json_schema()
        if req.system_prompt is None and req.system_prompt_path is not None:
            try:
                text = Path(req.system_prompt_path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise EngramValidationError(
                    f"cannot read system_prompt_path {req.system_prompt_path!r}: {exc}"
                ) from exc
            payload["system_prompt"] = text
        body = await self.request("POST", "/api/v1/recall", json=_json_ready(payload))
        return _recall_adapter().validate_python(body)

    async def _improve(self, req: ImproveRequest) -> Any:
        from engramdb.models.improve import ImproveResult

        payload = _dataset_ref(req.wire_payload(), "dataset", req.dataset)
        # improve.md: against a remote server only True is forwarded; False is dropped and the
        # server's own IMPROVE_GLOBAL_CONTEXT_INDEX applies.
        if req.build_global_context_index is not True:
            payload.pop("build_global_context_index", None)
        payload.update(_improve_custom_tasks(req))
        body = await self.request("POST", "/api/v1/improve", json=_json_ready(payload))
        run_id = body.pop("run_id", None)
        result = ImproveResult.model_validate(body)
        if run_id is not None:
            result._task = asyncio.get_running_loop().create_task(
                self._finish_improve(UUID(run_id), result)
            )
        return result

    async def _finish_improve(self, run_id: UUID, result: Any) -> Any:
        from engramdb.models.improve import ImproveResult

        final = ImproveResult.model_validate(await self._wait_run(run_id))
        result.stages = final.stages
        result.status = final.status
        result._memify_run = final._memify_run
        return result

    # -- sessions --------------------------------------------------------------------------

    # -- skills ----------------------------------------------------------------------------

    async def _create_api_key(self, req: CreateApiKeyRequest) -> tuple[Any, str]:
        """The key crosses HTTP as ``{"info": ..., "api_key": ...}``; the SDK returns the pair."""
        from engramdb.models.access import CreatedApiKey

        payload = req.wire_payload()
        path = f"/api/v1/users/{_segment(str(payload.pop('user_id')))}/api-keys"
        created = CreatedApiKey.model_validate(
            await self.request("POST", path, json=_json_ready(payload))
        )
        return created.info, created.api_key

    async def _remember_skills(self, req: RememberSkillsRequest) -> list[Any]:
        """Files and directories are read here, on the client; the server gets the texts."""
        from engramdb.api.skills import _as_path, _read
        from engramdb.models.skills import SkillRecord

        source = req.path_or_text
        documents: list[dict[str, Any]] = []
        path = _as_path(source)
        if path is None:
            documents.append({"text": str(source)})
        elif path.is_dir():
            files = sorted(
                p for p in path.rglob("*") if p.is_file() and p.name.lower() == "skill.md"
            )
            if not files:
                raise EngramValidationError(f"no SKILL.md file under {path}")
            documents += [{"text": _read(f), "default_name": f.parent.name} for f in files]
        else:
            named = path.name.lower() == "skill.md"
            documents.append(
                {"text": _read(path), "default_name": path.parent.name if named else None}
            )
        payload = req.wire_payload()
        payload["documents"] = [_json_ready(d) for d in documents]
        body = await self.request("POST", "/api/v1/skills/markdown", json=_json_ready(payload))
        return [SkillRecord.model_validate(r) for r in body]

    # -- graph -----------------------------------------------------------------------------

    async def _get_graph(self, req: GetGraphRequest) -> Any:
        from engramdb.models.snapshot import GraphSnapshot
        from engramdb.verbs import VERBS

        datasets, dataset_ids = req.datasets, req.dataset_ids
        # An empty list names no dataset (nothing to show, as in-process); over a query string
        # it would read as "not given".
        if dataset_ids is not None and not dataset_ids:
            return GraphSnapshot()
        if dataset_ids is None and datasets is not None and not datasets:
            return GraphSnapshot()
        if dataset_ids is not None:
            req = req.model_copy(update={"datasets": None})
        return await self.send(VERBS["get_graph"], req)

    async def _visualize_graph(self, a: VisualizeGraphRequest) -> str:
        """The graph comes over ``GET /api/v1/graph/view`` (chosen and named by the server the
        way visualize_graph() does in process); the page is rendered and written here."""
        from engramdb.api import visualize
        from engramdb.viz.html import render_payload_html

        a = visualize.cognee_scope(a)
        if visualize.wants_seeds(a):
            raise FeatureNotAvailableError(
                "visualize_graph(query=/seed_node_ids=/recall_result=) is in-process only; "
                "in remote mode draw the whole graph (full=True) or filter it with dataset="
            )
        target = visualize._target_path(a.path)
        params: dict[str, Any] = {
            "max_nodes": a.max_nodes,
            "max_edges": a.max_edges,
            "include_internal": a.include_internal,
        }
        if a.datasets is not None:
            params["datasets"] = a.datasets
        if a.dataset_ids is not None:
            params["dataset_ids"] = [str(d) for d in a.dataset_ids]
        if a.datasets == [] or a.dataset_ids == []:
            # an explicitly empty selection draws nothing, as in process (a query string
            # cannot carry an empty list)
            from engramdb.viz.html import graph_payload

            payload = graph_payload([], [], title="engramdb memory graph", dataset_names={})
        else:
            payload = await self.request("GET", "/api/v1/graph/view", params=params)
        notices = payload.pop("notices", [])
        page = render_payload_html(payload, notice=" ".join(notices) or None)
        await asyncio.to_thread(visualize._write_atomically, target, page)
        return str(target)


def _dataset_ref(payload: dict[str, Any], key: str, ref: object) -> dict[str, Any]:
    """A dataset given by UUID travels as ``<key>_id`` (a name as ``<key>``)."""
    if isinstance(ref, UUID):
        payload.pop(key, None)
        payload[f"{key}_id"] = str(ref)
    return payload


def _segment(value: object) -> str:
    """A path segment, percent-encoded (ids and session names never add path levels)."""
    from urllib.parse import quote

    if not isinstance(value, str) or not value:
        raise EngramValidationError(f"expected a non-empty string id, got {value!r}")
    return quote(value, safe="")


def _chunker_name(chunker: object) -> str | None:
    if chunker is None:
        return None
    if isinstance(chunker, type) and chunker.__module__.startswith("engramdb."):
        name = chunker.__name__
        if name in _BUILTIN_CHUNKERS:
            return name
    raise FeatureNotAvailableError(
        "in remote mode chunker may only be one of the built-in classes TextChunker, "
        "TextChunkerWithOverlap or CsvChunker (a custom chunker cannot cross HTTP)"
    )


def _split_inputs(data: object) -> tuple[list[str], list[tuple[str, Path]]]:
    """Texts and local files (directories expanded) of a remember() input."""
    from engramdb.ingest.loaders._sources import FileSource, resolve_item

    items: Sequence[object]
    if isinstance(data, str | PurePath):
        items = [data]
    elif isinstance(data, Sequence) and not isinstance(data, bytes | bytearray):
        items = data
    else:
        raise EngramValidationError(
            f"input has unsupported type '{type(data).__name__}'; pass a str (text or a path), "
            "a pathlib.Path, or a list of those"
        )
    texts: list[str] = []
    files: list[tuple[str, Path]] = []
    for index, item in enumerate(items):
        for source in resolve_item(item, f"data[{index}]", 1 << 62):
            if isinstance(source, FileSource):
                files.append((source.path.name, source.path))
            else:
                texts.append(source.text)
    return texts, files


def _form_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return json.dumps(value)
    return str(value)


def _json_ready(payload: dict[str, Any]) -> dict[str, Any]:
    """Drop None values (server defaults apply) and check the rest serialises."""
    ready = {k: v for k, v in payload.items() if v is not None}
    try:
        json.dumps(ready)
    except (TypeError, ValueError) as exc:
        raise EngramValidationError(
            f"an argument cannot be sent to the server as JSON: {exc}"
        ) from exc
    return ready


#: The old name of :class:`HttpClient`.
RemoteClient = HttpClient


def _improve_custom_tasks(req: ImproveRequest) -> dict[str, Any]:
    """improve()'s deprecated custom-task options as the server takes them: tasks by name."""
    sent: dict[str, Any] = {}
    for name in ("extraction_tasks", "enrichment_tasks"):
        tasks = getattr(req, name)
        if tasks in (None, [], ()):
            continue
        if isinstance(tasks, str) or not all(isinstance(t, str) for t in tasks):
            raise EngramValidationError(
                f"improve({name}=...): in remote mode only memify task names can be sent (a "
                "Task object cannot cross HTTP); pass names, or call disconnect() to run your "
                "tasks in-process"
            )
        sent[name] = list(tasks)
    if req.data is not None:
        sent["data"] = req.data
    if req.node_name:
        sent["node_name"] = list(req.node_name)
    return sent
