"""The public namespace of ``engramdb`` is exactly what it means to be (httpx pins its own).

The list is written out here on purpose: adding or removing a public name is an API change and
must show up in a diff of this file. Who adds a name (e.g. ``Engine`` and new verbs) updates
EXPECTED_ALL in the same commit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import types

import engramdb

EXPECTED_ALL = [
    "AuthenticationError",
    "CodeSeedNotFoundError",
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
    "ImproveAdmission",
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
    "SqlGuardError",
    "StageResult",
    "StatementTimeoutError",
    "StorageError",
    "StorageFullError",
    "StorageReadOnlyError",
    "SyncInLoopError",
    "Task",
    "Tenant",
    "TenantNotFoundError",
    "Text",
    "TextChunker",
    "TextChunkerWithOverlap",
    "ToolCallsDisabledError",
    "ToolConnectionNotFoundError",
    "TraceEntry",
    "UserNotFoundError",
    "__version__",
    "access",
    "add",
    "add_data_points",
    "add_user_to_role",
    "add_user_to_tenant",
    "agent_memory",
    "apply_write_proposal",
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
    "list_improve_runs",
    "list_sql_connections",
    "list_tenants",
    "list_users",
    "list_write_proposals",
    "load_skill",
    "memify",
    "memory",
    "propose_sql_write",
    "prune",
    "recall",
    "register_improve_admission_check",
    "register_sql_connection",
    "reject_write_proposal",
    "remember",
    "remember_skill",
    "remember_skills",
    "remove_sql_connection",
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
    "tools",
    "update",
    "visualize",
    "visualize_graph",
    "wait_for_background_tasks",
]

#: Public attributes deliberately left out of ``__all__``: old names kept for ``except`` clauses.
ALIASES = {"UnauthenticatedError"}


def test_all_is_pinned() -> None:
    assert sorted(engramdb.__all__) == engramdb.__all__  # kept sorted, so diffs stay readable
    assert engramdb.__all__ == EXPECTED_ALL


def _leaks(names: dict[str, object]) -> set[str]:
    """Public attributes that are neither API, a deliberate alias, nor one of engramdb's own
    subpackages (Python sets those as attributes when they are imported)."""
    return {
        name
        for name, value in names.items()
        if not name.startswith("_")
        and name not in EXPECTED_ALL
        and name not in ALIASES
        and not (isinstance(value, types.ModuleType) and value.__name__ == f"engramdb.{name}")
    }


def test_nothing_else_leaks_into_the_namespace() -> None:
    for name in EXPECTED_ALL:
        getattr(engramdb, name)  # lazy names resolved and cached in the module too
    public = dict(vars(engramdb))
    assert not {"Any", "TYPE_CHECKING", "importlib", "annotations", "typing"} & set(public)
    assert _leaks(public) == set()
    assert sorted(dir(engramdb)) == sorted(EXPECTED_ALL)


def test_a_fresh_import_leaks_nothing() -> None:
    code = (
        "import json, types, engramdb; "
        "print(json.dumps({n: isinstance(v, types.ModuleType) and v.__name__ == 'engramdb.' + n "
        "for n, v in vars(engramdb).items() if not n.startswith('_')}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found: dict[str, bool] = json.loads(done.stdout)
    leaked = {n for n, own_module in found.items() if not own_module} - set(EXPECTED_ALL) - ALIASES
    assert leaked == set()


def test_the_migration_package_is_pinned() -> None:
    import engramdb.migration

    assert engramdb.migration.__all__ == [
        "IMPORT_MODES",
        "GraphitiSource",
        "ImportedRecord",
        "LettaSource",
        "Mem0Source",
        "MemorySource",
        "ZepSource",
    ]
