"""engramdb: persistent memory for AI agents.

``remember`` ingests, ``recall`` answers from memory, ``forget`` deletes exactly what it is told.
Programs written for the reference system run with ``import engramdb as cognee``.

Heavy modules load on first use, so ``import engramdb`` stays fast.
"""

# No ``from __future__ import annotations`` and only underscored helper imports: every public
# name of this module is API (pinned by tests/unit/core/test_public_api.py).
import importlib as _importlib
import typing as _typing

from engramdb.errors import (
    AuthenticationError,
    CogneeValidationError,
    ConfigurationError,
    ConflictError,
    CypherSyntaxError,
    CypherTimeoutError,
    CypherUnsupportedError,
    DatabaseDamagedError,
    DatabaseNotCreatedError,
    DataNotFoundError,
    DatasetNotFoundError,
    EmbeddingMismatchError,
    EmbeddingProviderError,
    EngramError,
    EngramValidationError,
    FeatureNotAvailableError,
    InvalidCodeQueryError,
    InvalidHybridSearchConfig,
    LLMBadRequestError,
    LLMNotConfiguredError,
    LLMOutputError,
    LLMPaymentRequiredError,
    LLMProviderError,
    LockTimeoutError,
    ModelFileError,
    NotFoundError,
    PermissionDeniedError,
    PermissionNotFoundError,
    ProviderError,
    RecallPreconditionError,
    RemoteUnavailableError,
    RoleNotFoundError,
    StatementTimeoutError,
    StorageError,
    StorageFullError,
    StorageReadOnlyError,
    TenantNotFoundError,
    UserNotFoundError,
)
from engramdb.errors import UnauthenticatedError as UnauthenticatedError  # old name, same class
from engramdb.models.search_type import SearchType
from engramdb.settings import config

if _typing.TYPE_CHECKING:
    from engramdb import access, datasets, prune, session, sync
    from engramdb.agent_context import agent_memory
    from engramdb.archive import export_archive, import_archive
    from engramdb.background import wait_for_background_tasks
    from engramdb.engine import Engine
    from engramdb.facade import (
        add,
        add_data_points,
        add_user_to_role,
        add_user_to_tenant,
        authenticate,
        check,
        cognify,
        create_api_key,
        create_role,
        create_tenant,
        create_user,
        delete,
        forget,
        get_graph,
        get_memory_provenance_graph,
        get_node,
        grant,
        improve,
        list_api_keys,
        list_conflicts,
        list_datasets,
        list_grants,
        list_tenants,
        list_users,
        load_skill,
        recall,
        remember,
        remember_skill,
        remember_skills,
        resolve_conflict,
        revoke,
        revoke_api_key,
        search,
        select_tenant,
        update,
        visualize,
        visualize_graph,
    )
    from engramdb.ingest.chunkers import CsvChunker, TextChunker, TextChunkerWithOverlap
    from engramdb.ingest.text import Text
    from engramdb.models.access import Role, Tenant
    from engramdb.models.conflicts import FactConflict
    from engramdb.models.datapoints import DataPoint
    from engramdb.models.improve import ImproveResult, StageResult
    from engramdb.models.results import (
        ForgetResult,
        RecallResponse,
        RememberResult,
        ResponseAgentTraceEntry,
        ResponseGraphEntry,
        ResponseMarkerEntry,
        ResponseQAEntry,
        ResponseSessionContextEntry,
    )
    from engramdb.models.snapshot import GraphSnapshot
    from engramdb.pipelines import Drop, Task, memify, run_custom_pipeline, run_tasks
    from engramdb.remote import disconnect, serve
    from engramdb.sessions import entries as memory
    from engramdb.sessions.entries import FeedbackEntry, QAEntry, TraceEntry

__version__ = "0.1.0"

_LAZY = {
    "create_user": "engramdb.facade",
    "create_tenant": "engramdb.facade",
    "list_tenants": "engramdb.facade",
    "add_user_to_tenant": "engramdb.facade",
    "select_tenant": "engramdb.facade",
    "create_role": "engramdb.facade",
    "add_user_to_role": "engramdb.facade",
    "Tenant": "engramdb.models.access",
    "Role": "engramdb.models.access",
    "create_api_key": "engramdb.facade",
    "list_api_keys": "engramdb.facade",
    "revoke_api_key": "engramdb.facade",
    "authenticate": "engramdb.facade",
    "grant": "engramdb.facade",
    "revoke": "engramdb.facade",
    "list_grants": "engramdb.facade",
    "list_users": "engramdb.facade",
    "check": "engramdb.facade",
    "add": "engramdb.facade",
    "cognify": "engramdb.facade",
    "search": "engramdb.facade",
    "serve": "engramdb.remote",
    "disconnect": "engramdb.remote",
    "remember": "engramdb.facade",
    "recall": "engramdb.facade",
    "forget": "engramdb.facade",
    "improve": "engramdb.facade",
    "list_conflicts": "engramdb.facade",
    "resolve_conflict": "engramdb.facade",
    "FactConflict": "engramdb.models.conflicts",
    "ImproveResult": "engramdb.models.improve",
    "StageResult": "engramdb.models.improve",
    "list_datasets": "engramdb.facade",
    "Engine": "engramdb.engine",
    "get_graph": "engramdb.facade",
    "get_memory_provenance_graph": "engramdb.facade",
    "visualize_graph": "engramdb.facade",
    "remember_skill": "engramdb.facade",
    "remember_skills": "engramdb.facade",
    "load_skill": "engramdb.facade",
    "get_node": "engramdb.facade",
    "GraphSnapshot": "engramdb.models.snapshot",
    "Text": "engramdb.ingest.text",
    "TextChunker": "engramdb.ingest.chunkers",
    "TextChunkerWithOverlap": "engramdb.ingest.chunkers",
    "CsvChunker": "engramdb.ingest.chunkers",
    "ForgetResult": "engramdb.models.results",
    "RecallResponse": "engramdb.models.results",
    "RememberResult": "engramdb.models.results",
    "ResponseGraphEntry": "engramdb.models.results",
    "ResponseMarkerEntry": "engramdb.models.results",
    "ResponseQAEntry": "engramdb.models.results",
    "ResponseAgentTraceEntry": "engramdb.models.results",
    "ResponseSessionContextEntry": "engramdb.models.results",
    "QAEntry": "engramdb.sessions.entries",
    "TraceEntry": "engramdb.sessions.entries",
    "FeedbackEntry": "engramdb.sessions.entries",
    "delete": "engramdb.facade",
    "update": "engramdb.facade",
    "visualize": "engramdb.facade",
    "wait_for_background_tasks": "engramdb.background",
    "add_data_points": "engramdb.facade",
    "DataPoint": "engramdb.models.datapoints",
    "Task": "engramdb.pipelines",
    "Drop": "engramdb.pipelines",
    "run_tasks": "engramdb.pipelines",
    "run_custom_pipeline": "engramdb.pipelines",
    "memify": "engramdb.pipelines",
    "agent_memory": "engramdb.agent_context",
    "export_archive": "engramdb.archive",
    "import_archive": "engramdb.archive",
}

#: Public names that are modules: ``engramdb.session`` (session verbs), ``engramdb.prune``
#: (cognee's resets) and ``engramdb.memory`` (typed session entries, the reference's
#: ``cognee.memory``).
_LAZY_MODULES = {
    "access": "engramdb.access",
    "session": "engramdb.session",
    "prune": "engramdb.prune",
    "memory": "engramdb.sessions.entries",
    "datasets": "engramdb.datasets",
    "sync": "engramdb.sync",
}

__all__ = [
    "AuthenticationError",
    "CogneeValidationError",
    "ConfigurationError",
    "ConflictError",
    "CsvChunker",
    "CypherSyntaxError",
    "CypherTimeoutError",
    "CypherUnsupportedError",
    "DataNotFoundError",
    "DataPoint",
    "DatabaseDamagedError",
    "DatabaseNotCreatedError",
    "DatasetNotFoundError",
    "Drop",
    "EmbeddingMismatchError",
    "EmbeddingProviderError",
    "Engine",
    "EngramError",
    "EngramValidationError",
    "FactConflict",
    "FeatureNotAvailableError",
    "FeedbackEntry",
    "ForgetResult",
    "GraphSnapshot",
    "ImproveResult",
    "InvalidCodeQueryError",
    "InvalidHybridSearchConfig",
    "LLMBadRequestError",
    "LLMNotConfiguredError",
    "LLMOutputError",
    "LLMPaymentRequiredError",
    "LLMProviderError",
    "LockTimeoutError",
    "ModelFileError",
    "NotFoundError",
    "PermissionDeniedError",
    "PermissionNotFoundError",
    "ProviderError",
    "QAEntry",
    "RecallPreconditionError",
    "RecallResponse",
    "RememberResult",
    "RemoteUnavailableError",
    "ResponseAgentTraceEntry",
    "ResponseGraphEntry",
    "ResponseMarkerEntry",
    "ResponseQAEntry",
    "ResponseSessionContextEntry",
    "Role",
    "RoleNotFoundError",
    "SearchType",
    "StageResult",
    "StatementTimeoutError",
    "StorageError",
    "StorageFullError",
    "StorageReadOnlyError",
    "Task",
    "Tenant",
    "TenantNotFoundError",
    "Text",
    "TextChunker",
    "TextChunkerWithOverlap",
    "TraceEntry",
    "UserNotFoundError",
    "__version__",
    "access",
    "add",
    "add_data_points",
    "add_user_to_role",
    "add_user_to_tenant",
    "agent_memory",
    "authenticate",
    "check",
    "cognify",
    "config",
    "create_api_key",
    "create_role",
    "create_tenant",
    "create_user",
    "datasets",
    "delete",
    "disconnect",
    "export_archive",
    "forget",
    "get_graph",
    "get_memory_provenance_graph",
    "get_node",
    "grant",
    "import_archive",
    "improve",
    "list_api_keys",
    "list_conflicts",
    "list_datasets",
    "list_grants",
    "list_tenants",
    "list_users",
    "load_skill",
    "memify",
    "memory",
    "prune",
    "recall",
    "remember",
    "remember_skill",
    "remember_skills",
    "resolve_conflict",
    "revoke",
    "revoke_api_key",
    "run_custom_pipeline",
    "run_tasks",
    "search",
    "select_tenant",
    "serve",
    "session",
    "sync",
    "update",
    "visualize",
    "visualize_graph",
    "wait_for_background_tasks",
]


def __getattr__(name: str) -> _typing.Any:
    if name in _LAZY_MODULES:
        loaded = _importlib.import_module(_LAZY_MODULES[name])
        globals()[name] = loaded
        return loaded
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engramdb' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
