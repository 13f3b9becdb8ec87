"""``cognee.modules.session_distillation``: ``distill_session`` (``engramdb.session``'s)."""

from engramdb.models.sessions import DistillationResult
from engramdb.session import distill_session

__all__ = ["DistillationResult", "distill_session"]
