"""``cognee.api.v1.tools.tools``: the tool-connection and write-proposal functions."""

from engramdb.facade import (
    apply_write_proposal,
    list_sql_connections,
    list_write_proposals,
    propose_sql_write,
    register_sql_connection,
    reject_write_proposal,
    remove_sql_connection,
)
from engramdb.tools import propose_corrections

__all__ = [
    "apply_write_proposal",
    "list_sql_connections",
    "list_write_proposals",
    "propose_corrections",
    "propose_sql_write",
    "register_sql_connection",
    "reject_write_proposal",
    "remove_sql_connection",
]
