"""``cognee.infrastructure.session``: ``get_session_manager`` over engramdb's sessions."""

from engramdb.compat.cognee.infrastructure.session.get_session_manager import get_session_manager
from engramdb.compat.cognee.infrastructure.session.session_manager import SessionManager

__all__ = ["SessionManager", "get_session_manager"]
