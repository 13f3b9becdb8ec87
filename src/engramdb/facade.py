"""The module-level verbs: ``engramdb.remember``, ``engramdb.recall``, ``engramdb.session.*``...

Each is derived from its verb (:mod:`engramdb.verbs`): its signature is the request model's, a
call validates its arguments into that model and hands the request to the current client: the
in-process default engine, or the server connected with :func:`engramdb.serve`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any
from uuid import UUID

from engramdb.client import LocalClient
from engramdb.models.access import Permission
from engramdb.models.records import Dataset, User
from engramdb.remote.switch import active_client
from engramdb.verbs import VERBS
from engramdb.verbs.spec import Verb

if TYPE_CHECKING:
    from engramdb.ingest.pipeline import ProgressCallback

__all__ = [
    "add",
    "add_data_points",
    "add_user_to_role",
    "add_user_to_tenant",
    "apply_write_proposal",
    "authenticate",
    "check",
    "cognify",
    "create_api_key",
    "create_role",
    "create_tenant",
    "create_user",
    "delete",
    "find_user",
    "forget",
    "get_graph",
    "get_memory_provenance_graph",
    "get_node",
    "grant",
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
    "propose_sql_write",
    "recall",
    "register_sql_connection",
    "reject_write_proposal",
    "remember",
    "remember_skill",
    "remember_skills",
    "remember_with_progress",
    "remove_sql_connection",
    "resolve_conflict",
    "revoke",
    "revoke_api_key",
    "search",
    "select_tenant",
    "update",
    "verb_function",
    "verb_functions",
    "visualize",
    "visualize_graph",
]

VerbFunction = Callable[..., Coroutine[Any, Any, Any]]


def verb_function(
    verb: Verb[Any, Any], call: Callable[[Verb[Any, Any], Any], Coroutine[Any, Any, Any]]
) -> VerbFunction:
    """A coroutine function with ``verb``'s signature that validates its arguments into the
    verb's request and awaits ``call(verb, request)``; documented by the verb's handler."""

    async def run(*args: Any, **kwargs: Any) -> Any:
        return await call(verb, verb.bind(args, kwargs))

    run.__name__ = run.__qualname__ = verb.name
    run.__module__ = verb.namespace
    run.__signature__ = verb.signature  # type: ignore[attr-defined]
    run.__doc__ = inspect.getdoc(verb.handler)
    run.__engramdb_verb__ = verb.name  # type: ignore[attr-defined]
    return run


async def _call_current(verb: Verb[Any, Any], request: Any) -> Any:
    return await active_client().call(verb, request)


def verb_functions(namespace: str) -> dict[str, VerbFunction]:
    """The module-level function of every verb of ``namespace`` (``"engramdb"`` or
    ``"engramdb.session"``), by name."""
    return {
        name: verb_function(verb, _call_current)
        for name, verb in VERBS.items()
        if verb.namespace == namespace
    }


_top = verb_functions("engramdb")
remember = _top["remember"]
recall = _top["recall"]
improve = _top["improve"]
forget = _top["forget"]
list_datasets = _top["list_datasets"]
get_graph = _top["get_graph"]
get_node = _top["get_node"]
visualize_graph = _top["visualize_graph"]
list_conflicts = _top["list_conflicts"]
list_improve_runs = _top["list_improve_runs"]
resolve_conflict = _top["resolve_conflict"]
remember_skill = _top["remember_skill"]
remember_skills = _top["remember_skills"]
load_skill = _top["load_skill"]
create_user = _top["create_user"]
list_users = _top["list_users"]
create_api_key = _top["create_api_key"]
list_api_keys = _top["list_api_keys"]
revoke_api_key = _top["revoke_api_key"]
grant = _top["grant"]
revoke = _top["revoke"]
list_grants = _top["list_grants"]
add = _top["add"]
cognify = _top["cognify"]
search = _top["search"]
delete = _top["delete"]
#: cognee's other name of visualize_graph.
visualize = visualize_graph
update = _top["update"]
add_data_points = _top["add_data_points"]
create_tenant = _top["create_tenant"]
list_tenants = _top["list_tenants"]
add_user_to_tenant = _top["add_user_to_tenant"]
select_tenant = _top["select_tenant"]
create_role = _top["create_role"]
add_user_to_role = _top["add_user_to_role"]


async def check(user: User, dataset_id: UUID | str, permission: Permission | str) -> Dataset:
    """The dataset if ``user`` holds ``permission`` on it, on the default engine (see
    :func:`engramdb.access.check`); PermissionDeniedError otherwise, the same for an unknown
    dataset. In-process only."""
    from engramdb.access.permissions import check as check_on
    from engramdb.access.permissions import denied, validate_permission
    from engramdb.engine import get_engine

    engine = get_engine()
    if not await engine.database_exists():  # nothing was ever stored: nothing to permit
        raise denied(dataset_id, validate_permission(permission))
    await engine.ensure_setup()
    return await check_on(user, dataset_id, permission, store=engine.store)


async def find_user(email: str) -> User | None:
    """The user with that e-mail address on the default engine, or None. In-process only."""
    from engramdb.access.users import find_user as find_on
    from engramdb.engine import get_engine

    return await find_on(get_engine(), email)


async def authenticate(api_key: str) -> User:
    """The user an API key belongs to, on the default engine (AuthenticationError otherwise).
    In-process only: a server authenticates its own callers."""
    from engramdb.access.keys import authenticate as authenticate_on
    from engramdb.engine import get_engine

    return await authenticate_on(get_engine(), api_key)


async def get_memory_provenance_graph(
    include_memory: bool = False,
    scope_tenant_ids: Any = None,
    scope_user_ids: Any = None,
    scope_dataset_ids: Any = None,
    *,
    user: User | None = None,
) -> Any:
    """cognee's ``(nodes, edges)`` provenance graph of what the caller may read, on the default
    engine: users own datasets, datasets contain files, files mention memories
    (``include_memory``). See :mod:`engramdb.api.provenance`. In-process only."""
    from engramdb.api.provenance import get_memory_provenance_graph as build
    from engramdb.engine import get_engine

    return await build(
        get_engine(),
        include_memory,
        scope_tenant_ids,
        scope_user_ids,
        scope_dataset_ids,
        user=user,
    )


async def remember_with_progress(
    *args: Any, progress: ProgressCallback | None = None, **kwargs: Any
) -> Any:
    """``remember(...)`` with a progress callback where the call runs in-process (the CLI's
    progress bar); over HTTP the server reports no progress, so the callback is not called."""
    verb = VERBS["remember"]
    request = verb.bind(args, kwargs)
    client = active_client()
    if isinstance(client, LocalClient):
        from engramdb.api.remember import remember as handler

        return await handler(client.engine, request, progress=progress)
    return await client.call(verb, request)


register_sql_connection = _top["register_sql_connection"]
list_sql_connections = _top["list_sql_connections"]
remove_sql_connection = _top["remove_sql_connection"]
propose_sql_write = _top["propose_sql_write"]
list_write_proposals = _top["list_write_proposals"]
apply_write_proposal = _top["apply_write_proposal"]
reject_write_proposal = _top["reject_write_proposal"]
