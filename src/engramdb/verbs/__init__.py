"""The verb table: every verb the facade, the Engine, the REST server, the MCP server and the
remote client share, each declared once by its request model (:mod:`engramdb.models.requests`).

See :mod:`engramdb.verbs.spec` for what is derived from a verb.
"""

from __future__ import annotations

from typing import Any, Literal
from uuid import UUID

from pydantic import Field

from engramdb.models.access import ApiKeyInfo, Grant, Role, Tenant
from engramdb.models.conflicts import FactConflict
from engramdb.models.datasets import Data
from engramdb.models.improve import ImproveResult, ImproveRun
from engramdb.models.records import Dataset, Node, User
from engramdb.models.requests import (
    ForgetRequest,
    ImproveRequest,
    ListDatasetsRequest,
    ListImproveRunsRequest,
    RecallRequest,
    RememberRequest,
)
from engramdb.models.requests.access import (
    CreateApiKeyRequest,
    CreateUserRequest,
    GrantRequest,
    ListApiKeysRequest,
    ListGrantsRequest,
    ListUsersRequest,
    RevokeApiKeyRequest,
    RevokeRequest,
)
from engramdb.models.requests.classic import (
    AddRequest,
    CognifyRequest,
    PruneDataRequest,
    PruneSystemRequest,
    SearchRequest,
)
from engramdb.models.requests.common import MAX_ITEMS, DatasetIds, DatasetNames
from engramdb.models.requests.data_points import AddDataPointsRequest
from engramdb.models.requests.datasets import (
    DeleteAllRequest,
    DeleteDataRequest,
    DeleteRequest,
    EmptyDatasetRequest,
    GetStatusRequest,
    HasDataRequest,
    ListDataRequest,
    UpdateRequest,
)
from engramdb.models.requests.graph import (
    GetGraphRequest,
    GetNodeRequest,
    ListConflictsRequest,
    LoadSkillRequest,
    RememberSkillRequest,
    RememberSkillsRequest,
    ResolveConflictRequest,
    VisualizeGraphRequest,
)
from engramdb.models.requests.sessions import (
    AddFeedbackRequest,
    AddGuidanceRequest,
    AddQARequest,
    AddTraceRequest,
    DeleteFeedbackRequest,
    DeleteSessionRequest,
    DistillSessionRequest,
    GetSessionRequest,
    GetTracesRequest,
    ListSessionsRequest,
)
from engramdb.models.requests.tenants import (
    AddUserToRoleRequest,
    AddUserToTenantRequest,
    CreateRoleRequest,
    CreateTenantRequest,
    ListTenantsRequest,
    SelectTenantRequest,
)
from engramdb.models.results import (
    ForgetResult,
    RecallResponse,
    RememberResult,
    ResponseAgentTraceEntry,
    ResponseQAEntry,
)
from engramdb.models.sessions import DistillationResult, SessionRecord
from engramdb.models.skills import Skill, SkillMarkdown, SkillRecord
from engramdb.models.snapshot import GraphSnapshot
from engramdb.verbs.spec import API_PREFIX, Http, HttpMethod, Verb, VerbRequest, signature_for
from engramdb.verbs.tools import TOOLS_VERBS

__all__ = [
    "BODY_VERBS",
    "VERBS",
    "ChunkerName",
    "Http",
    "Verb",
    "VerbRequest",
    "signature_for",
    "verb",
]

#: The built-in chunkers by name (what crosses HTTP for remember's ``chunker``).
ChunkerName = Literal["TextChunker", "TextChunkerWithOverlap", "CsvChunker"]

_SESSION = "engramdb.session"
_PRUNE = "engramdb.prune"
_DATASETS = "engramdb.datasets"
_API = API_PREFIX


def _session_verb(
    name: str, request: type[VerbRequest], result: Any, method: HttpMethod, tail: str
) -> Verb[Any, Any]:
    """A verb of ``engramdb.session``: handler ``api/session.py:<name>``, route
    ``/api/v1/sessions<tail>``."""
    return Verb(
        name,
        request,
        f"engramdb.api.session:{name}",
        result,
        http=Http(method, f"{_API}/sessions{tail}", tags=("sessions",)),
        namespace=_SESSION,
    )


def _datasets_verb(
    name: str, request: type[VerbRequest], result: Any, route: tuple[HttpMethod, str] | None = None
) -> Verb[Any, Any]:
    """A verb of ``engramdb.datasets`` (cognee's ``datasets``): handler ``api/datasets.py``,
    route ``/api/v1/datasets<tail>`` when one is given."""
    http = (
        None if route is None else Http(route[0], f"{_API}/datasets{route[1]}", tags=("datasets",))
    )
    return Verb(
        name, request, f"engramdb.api.datasets:{name}", result, http=http, namespace=_DATASETS
    )


#: improve()'s deprecated custom-task options as they cross HTTP (improve.md: "Over REST,
#: extractionTasks, enrichmentTasks, data and nodeName ... are marked deprecated the same
#: way"): tasks travel as memify task names only (a Task object cannot cross HTTP).
_DEPRECATED_WIRE: dict[str, Any] = {"deprecated": True}
_IMPROVE_DEPRECATED_WIRE: dict[str, tuple[Any, Any]] = {
    "extraction_tasks": (
        list[str] | None,
        Field(
            default=None,
            max_length=100,
            description="Deprecated: memify task names run as the custom_tasks stage.",
            json_schema_extra=_DEPRECATED_WIRE,
        ),
    ),
    "enrichment_tasks": (
        list[str] | None,
        Field(
            default=None,
            max_length=100,
            description="Deprecated: memify task names run after extraction_tasks.",
            json_schema_extra=_DEPRECATED_WIRE,
        ),
    ),
    "data": (
        Any,
        Field(
            default=None,
            description="Deprecated: the custom tasks' input instead of the dataset's graph.",
            json_schema_extra=_DEPRECATED_WIRE,
        ),
    ),
    "node_name": (
        list[str] | None,
        Field(
            default=None,
            max_length=MAX_ITEMS,
            description="Deprecated: restricts the graph passed to the custom tasks.",
            json_schema_extra=_DEPRECATED_WIRE,
        ),
    ),
}

_TABLE: tuple[Verb[Any, Any], ...] = (
    # -- memory -------------------------------------------------------------------------------
    Verb(
        "remember",
        RememberRequest,
        "engramdb.api.remember:remember",
        RememberResult,
        wire_extra={
            "data": (
                str | list[str],
                Field(description="A text or a list of texts; never a path on the server."),
            ),
            "chunker": (ChunkerName | None, Field(default=None)),
        },
        encoded_locals=frozenset({"chunker"}),
        http=Http("POST", f"{_API}/remember", tags=("memory",), custom=True),
        dataset_field="dataset_name",
    ),
    Verb(
        "recall",
        RecallRequest,
        "engramdb.api.recall:recall",
        list[RecallResponse],
        wire_extra={
            "response_schema": (
                dict[str, Any] | None,
                Field(
                    default=None,
                    description="The JSON schema of the answer (the SDK's response_model).",
                ),
            )
        },
        encoded_locals=frozenset({"response_model", "system_prompt_path"}),
        http=Http("POST", f"{_API}/recall", tags=("memory",), custom=True),
    ),
    Verb(
        "improve",
        ImproveRequest,
        "engramdb.api.improve:improve",
        ImproveResult,
        wire_extra=_IMPROVE_DEPRECATED_WIRE,
        encoded_locals=frozenset(_IMPROVE_DEPRECATED_WIRE),
        http=Http("POST", f"{_API}/improve", tags=("memory",), custom=True),
        dataset_field="dataset",
    ),
    Verb(
        "list_improve_runs",
        ListImproveRunsRequest,
        "engramdb.api.improve_runs:list_improve_runs",
        list[ImproveRun],
        http=Http("GET", f"{_API}/improve/runs", tags=("memory",)),
        dataset_field="dataset",
    ),
    Verb(
        "forget",
        ForgetRequest,
        "engramdb.api.forget:forget",
        ForgetResult,
        http=Http("POST", f"{_API}/forget", tags=("memory",)),
        dataset_field="dataset",
    ),
    Verb(
        "list_datasets",
        ListDatasetsRequest,
        "engramdb.api.datasets:list_datasets",
        list[Dataset],
        http=Http("GET", f"{_API}/datasets", tags=("datasets",)),
    ),
    # -- cognee's classic verbs ----------------------------------------------------------------
    Verb(
        "add",
        AddRequest,
        "engramdb.api.add:add",
        RememberResult,
        wire_extra={
            "data": (
                str | list[str],
                Field(description="A text or a list of texts; never a path on the server."),
            )
        },
        http=Http("POST", f"{_API}/add", tags=("classic",), custom=True),
    ),
    Verb(
        "cognify",
        CognifyRequest,
        "engramdb.api.cognify:cognify",
        dict[UUID, RememberResult],
        wire_extra={
            "datasets": (DatasetNames, Field(default=None, description="Datasets by name.")),
            "dataset_ids": (DatasetIds, Field(default=None, description="Datasets by id.")),
            "chunker": (ChunkerName | None, Field(default=None)),
        },
        encoded_locals=frozenset({"chunker"}),
        http=Http("POST", f"{_API}/cognify", tags=("classic",), custom=True),
    ),
    Verb(
        "search",
        SearchRequest,
        "engramdb.api.search:search",
        list[Any],
        http=Http("POST", f"{_API}/search", tags=("classic",)),
    ),
    Verb("prune_data", PruneDataRequest, "engramdb.api.prune:prune_data", None, namespace=_PRUNE),
    Verb(
        "prune_system",
        PruneSystemRequest,
        "engramdb.api.prune:prune_system",
        None,
        namespace=_PRUNE,
    ),
    # -- cognee's data management: delete, update, the datasets namespace ----------------------
    Verb("delete", DeleteRequest, "engramdb.api.datasets:delete", dict[str, str]),
    Verb("update", UpdateRequest, "engramdb.api.update:update", dict[str, Any]),
    _datasets_verb("list_data", ListDataRequest, list[Data], ("GET", "/{dataset_id}/data")),
    _datasets_verb("has_data", HasDataRequest, bool, ("GET", "/{dataset_id}/has-data")),
    _datasets_verb("get_status", GetStatusRequest, dict[str, Any], ("GET", "/status")),
    _datasets_verb("get_progress", GetStatusRequest, dict[str, Any], ("GET", "/progress")),
    _datasets_verb("empty_dataset", EmptyDatasetRequest, None),
    _datasets_verb(
        "delete_data",
        DeleteDataRequest,
        dict[str, str],
        ("DELETE", "/{dataset_id}/data/{data_id}"),
    ),
    _datasets_verb("delete_all", DeleteAllRequest, None),
    Verb(
        "add_data_points",
        AddDataPointsRequest,
        "engramdb.api.data_points:add_data_points",
        RememberResult,
    ),
    # -- graph, conflicts, skills -------------------------------------------------------------
    Verb(
        "get_graph",
        GetGraphRequest,
        "engramdb.api.graph:get_graph",
        GraphSnapshot,
        http=Http("GET", f"{_API}/graph", tags=("graph",)),
    ),
    Verb(
        "get_node",
        GetNodeRequest,
        "engramdb.api.graph:get_node",
        Node | None,
        http=Http("GET", f"{_API}/nodes/{{node_id}}", tags=("graph",), none_on_404=True),
    ),
    Verb(
        "visualize_graph",
        VisualizeGraphRequest,
        "engramdb.api.visualize:visualize_graph",
        str,
        # no route: the client reads the graph over HTTP and writes the page itself
        encoded_locals=frozenset({"path", "destination_file_path", "recall_result"}),
    ),
    Verb(
        "list_conflicts",
        ListConflictsRequest,
        "engramdb.api.conflicts:list_conflicts",
        list[FactConflict],
        http=Http("GET", f"{_API}/conflicts", tags=("conflicts",)),
        dataset_field="dataset",
    ),
    Verb(
        "resolve_conflict",
        ResolveConflictRequest,
        "engramdb.api.conflicts:resolve_conflict",
        FactConflict,
        http=Http("POST", f"{_API}/conflicts/{{conflict_id}}/resolve", tags=("conflicts",)),
    ),
    Verb(
        "remember_skill",
        RememberSkillRequest,
        "engramdb.api.skills:remember_skill",
        SkillRecord,
        http=Http("POST", f"{_API}/skills", tags=("skills",)),
    ),
    Verb(
        "remember_skills",
        RememberSkillsRequest,
        "engramdb.api.skills:remember_skills",
        list[SkillRecord],
        wire_extra={
            "documents": (
                list[SkillMarkdown],
                Field(min_length=1, max_length=MAX_ITEMS, description="The markdown texts."),
            )
        },
        encoded_locals=frozenset({"path_or_text"}),
        http=Http("POST", f"{_API}/skills/markdown", tags=("skills",), custom=True),
    ),
    Verb(
        "load_skill",
        LoadSkillRequest,
        "engramdb.api.skills:load_skill",
        Skill,
        http=Http("GET", f"{_API}/skills/{{skill_id}}", tags=("skills",)),
    ),
    # -- users, keys, grants ------------------------------------------------------------------
    Verb(
        "create_user",
        CreateUserRequest,
        "engramdb.access.users:create_user",
        User,
        http=Http("POST", f"{_API}/users", status=201, tags=("users",)),
    ),
    Verb(
        "list_users",
        ListUsersRequest,
        "engramdb.access.users:list_users",
        list[User],
        http=Http("GET", f"{_API}/users", tags=("users",)),
    ),
    Verb(
        "create_api_key",
        CreateApiKeyRequest,
        "engramdb.access.keys:create_api_key",
        tuple[ApiKeyInfo, str],
        # over HTTP the pair travels as {"info": ..., "api_key": ...} (a route of its own)
        http=Http(
            "POST", f"{_API}/users/{{user_id}}/api-keys", status=201, tags=("users",), custom=True
        ),
    ),
    Verb(
        "list_api_keys",
        ListApiKeysRequest,
        "engramdb.access.keys:list_api_keys",
        list[ApiKeyInfo],
        http=Http("GET", f"{_API}/users/{{user_id}}/api-keys", tags=("users",)),
    ),
    Verb(
        "revoke_api_key",
        RevokeApiKeyRequest,
        "engramdb.access.keys:revoke_api_key",
        None,
        http=Http("DELETE", f"{_API}/api-keys/{{key_id}}", status=204, tags=("users",)),
    ),
    Verb(
        "grant",
        GrantRequest,
        "engramdb.access.grants:grant",
        None,
        http=Http("POST", f"{_API}/datasets/{{dataset_id}}/grants", status=204, tags=("datasets",)),
    ),
    Verb(
        "revoke",
        RevokeRequest,
        "engramdb.access.grants:revoke",
        None,
        http=Http(
            "DELETE",
            f"{_API}/datasets/{{dataset_id}}/grants/{{grantee_id}}/{{permission}}",
            status=204,
            tags=("datasets",),
        ),
    ),
    Verb(
        "list_grants",
        ListGrantsRequest,
        "engramdb.access.grants:list_grants",
        list[Grant],
        http=Http("GET", f"{_API}/datasets/{{dataset_id}}/grants", tags=("datasets",)),
    ),
    # -- tenants and roles --------------------------------------------------------------------
    Verb(
        "create_tenant",
        CreateTenantRequest,
        "engramdb.access.tenants:create_tenant",
        Tenant,
        http=Http("POST", f"{_API}/tenants", status=201, tags=("tenants",)),
    ),
    Verb(
        "list_tenants",
        ListTenantsRequest,
        "engramdb.access.tenants:list_tenants",
        list[Tenant],
        http=Http("GET", f"{_API}/tenants", tags=("tenants",)),
    ),
    Verb(
        "add_user_to_tenant",
        AddUserToTenantRequest,
        "engramdb.access.tenants:add_user_to_tenant",
        None,
        http=Http("POST", f"{_API}/tenants/{{tenant_id}}/users", status=204, tags=("tenants",)),
    ),
    Verb(
        "select_tenant",
        SelectTenantRequest,
        "engramdb.access.tenants:select_tenant",
        User,
        http=Http("POST", f"{_API}/tenants/select", tags=("tenants",)),
    ),
    Verb(
        "create_role",
        CreateRoleRequest,
        "engramdb.access.tenants:create_role",
        Role,
        http=Http("POST", f"{_API}/roles", status=201, tags=("tenants",)),
    ),
    Verb(
        "add_user_to_role",
        AddUserToRoleRequest,
        "engramdb.access.tenants:add_user_to_role",
        None,
        http=Http("POST", f"{_API}/roles/{{role_id}}/users", status=204, tags=("tenants",)),
    ),
    *TOOLS_VERBS,
    # -- sessions (engramdb.session) ----------------------------------------------------------
    _session_verb("add_feedback", AddFeedbackRequest, bool, "POST", "/{session_id}/feedback"),
    _session_verb(
        "delete_feedback",
        DeleteFeedbackRequest,
        bool,
        "DELETE",
        "/{session_id}/entries/{qa_id}/feedback",
    ),
    _session_verb(
        "get_session", GetSessionRequest, list[ResponseQAEntry], "GET", "/{session_id}/entries"
    ),
    _session_verb("list_sessions", ListSessionsRequest, list[SessionRecord], "GET", ""),
    _session_verb("delete_session", DeleteSessionRequest, bool, "DELETE", "/{session_id}"),
    _session_verb("add_qa", AddQARequest, str, "POST", "/{session_id}/entries"),
    _session_verb("add_trace", AddTraceRequest, str, "POST", "/{session_id}/traces"),
    _session_verb(
        "get_traces",
        GetTracesRequest,
        list[ResponseAgentTraceEntry],
        "GET",
        "/{session_id}/traces",
    ),
    _session_verb("add_guidance", AddGuidanceRequest, str, "POST", "/{session_id}/guidance"),
    _session_verb(
        "distill_session",
        DistillSessionRequest,
        DistillationResult,
        "POST",
        "/{session_id}/distill",
    ),
)

#: name -> verb.
VERBS: dict[str, Verb[Any, Any]] = {v.name: v for v in _TABLE}

#: Verbs whose REST route is written by hand and takes a JSON body (their wire models are
#: OpenAPI components under the request model's name).
BODY_VERBS = tuple(
    v.name for v in _TABLE if v.http is not None and v.http.custom and v.http.has_body
)


def verb(name: str) -> Verb[Any, Any]:
    """The verb called ``name`` (KeyError for an unknown name: a programming error)."""
    return VERBS[name]
