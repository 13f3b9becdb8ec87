"""The verbs of recall's tools scope: SQL connections and write proposals (docs/tools.md),
spliced into the verb table (:mod:`engramdb.verbs`) in place."""

from __future__ import annotations

from typing import Any

from engramdb.models.requests.tools import (
    ApplyWriteProposalRequest,
    ListSqlConnectionsRequest,
    ListWriteProposalsRequest,
    ProposeSqlWriteRequest,
    RegisterSqlConnectionRequest,
    RejectWriteProposalRequest,
    RemoveSqlConnectionRequest,
)
from engramdb.verbs.spec import API_PREFIX, Http, Verb

__all__ = ["TOOLS_VERBS"]

TOOLS_VERBS: tuple[Verb[Any, Any], ...] = (
    Verb(
        "register_sql_connection",
        RegisterSqlConnectionRequest,
        "engramdb.tools.connections:register_sql_connection",
        dict[str, Any],
        http=Http("POST", f"{API_PREFIX}/tools/sql-connections", status=201, tags=("tools",)),
    ),
    Verb(
        "list_sql_connections",
        ListSqlConnectionsRequest,
        "engramdb.tools.connections:list_sql_connections",
        list[dict[str, Any]],
        http=Http("GET", f"{API_PREFIX}/tools/sql-connections", tags=("tools",)),
    ),
    Verb(
        "remove_sql_connection",
        RemoveSqlConnectionRequest,
        "engramdb.tools.connections:remove_sql_connection",
        bool,
        http=Http("DELETE", f"{API_PREFIX}/tools/sql-connections/{{name}}", tags=("tools",)),
    ),
    Verb(
        "propose_sql_write",
        ProposeSqlWriteRequest,
        "engramdb.tools.proposals:propose_sql_write",
        dict[str, Any],
        http=Http("POST", f"{API_PREFIX}/tools/write-proposals", status=201, tags=("tools",)),
    ),
    Verb(
        "list_write_proposals",
        ListWriteProposalsRequest,
        "engramdb.tools.proposals:list_write_proposals",
        list[dict[str, Any]],
        http=Http("GET", f"{API_PREFIX}/tools/write-proposals", tags=("tools",)),
    ),
    Verb(
        "apply_write_proposal",
        ApplyWriteProposalRequest,
        "engramdb.tools.proposals:apply_write_proposal",
        dict[str, Any],
        http=Http(
            "POST", f"{API_PREFIX}/tools/write-proposals/{{proposal_id}}/apply", tags=("tools",)
        ),
    ),
    Verb(
        "reject_write_proposal",
        RejectWriteProposalRequest,
        "engramdb.tools.proposals:reject_write_proposal",
        dict[str, Any],
        http=Http(
            "POST", f"{API_PREFIX}/tools/write-proposals/{{proposal_id}}/reject", tags=("tools",)
        ),
    ),
)
