"""``cognee.infrastructure.session.get_session_manager``."""

from __future__ import annotations

from uuid import UUID

from engramdb.compat.cognee.infrastructure.session.session_manager import SessionManager

__all__ = ["get_session_manager"]


def get_session_manager(dataset_id: UUID | None = None) -> SessionManager:
    """cognee's session manager over engramdb's sessions (always available: they live in the
    store, not in a cache that CACHING switches). ``dataset_id`` is kept on the manager; the
    session ids it reads are the ones given (or ``default_session``). In-process only."""
    return SessionManager(dataset_id=dataset_id)
