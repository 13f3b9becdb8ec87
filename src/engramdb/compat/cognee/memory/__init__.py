"""``cognee.memory``: the typed entries ``remember(entry, session_id=...)`` accepts.

``QAEntry``, ``TraceEntry`` and ``FeedbackEntry`` are engramdb's own
(:mod:`engramdb.sessions.entries`), with cognee's fields; cognee's session ``node_set`` pin
and ``TraceEntry.generate_feedback_with_llm`` are not among them (a program that passes them
gets a validation error naming the field). ``SkillRunEntry`` has cognee's shape so a program
can build one; ``remember()`` refuses it with FeatureNotAvailableError (skill-run scoring is not
supported: rate the answer with ``session.add_feedback`` instead).
"""

from __future__ import annotations

from typing import Any, Literal

from engramdb.retrieval.scopes import KNOWN_SCOPES
from engramdb.sessions.entries import (
    FeedbackEntry,
    MemoryEntry,
    QAEntry,
    SkillRunEntry,
    TraceEntry,
)

__all__ = ["FeedbackEntry", "MemoryEntry", "QAEntry", "RecallScope", "SkillRunEntry", "TraceEntry"]

#: The values recall(scope=...) takes (engramdb's list, declared once in retrieval.scopes).
RecallScope: Any = Literal.__getitem__(KNOWN_SCOPES)
