"""``cognee.api.v1.tools``: registered SQL connections and write proposals of recall's
``tools`` scope (``cognee.tools`` is the same module, ``engramdb.tools``)."""

from engramdb.compat.cognee.api.v1.tools import tools
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
    "tools",
]
