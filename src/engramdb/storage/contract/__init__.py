"""The Store contract, one abstract class per concern; :class:`~engramdb.storage.base.Store`
combines them."""

from engramdb.storage.contract.access import AccessStore
from engramdb.storage.contract.archive import ArchiveStore
from engramdb.storage.contract.derived import DerivedStore
from engramdb.storage.contract.documents import DocumentStore
from engramdb.storage.contract.edits import EditStore
from engramdb.storage.contract.operations import OperationsStore
from engramdb.storage.contract.search import SearchStore
from engramdb.storage.contract.sessions import SessionStore
from engramdb.storage.contract.tools import ToolStore

__all__ = [
    "AccessStore",
    "ArchiveStore",
    "DerivedStore",
    "DocumentStore",
    "EditStore",
    "OperationsStore",
    "SearchStore",
    "SessionStore",
    "ToolStore",
]
