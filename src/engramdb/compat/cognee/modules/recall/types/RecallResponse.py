"""``cognee.modules.recall.types.RecallResponse``: the entries ``recall()`` returns.

They are engramdb's own (:mod:`engramdb.models.results`), so ``isinstance(answer,
ResponseGraphEntry)`` holds for what ``cognee.recall`` returns on engramdb. The entries are read
by attribute (``entry.text``, ``entry.source``); ``ResponseSkillEntry`` is engramdb's entry of
a SKILLS search.
"""

from __future__ import annotations

from engramdb.models.results import (
    RecallResponse,
    ResponseAgentTraceEntry,
    ResponseCodeEntry,
    ResponseGraphEntry,
    ResponseMarkerEntry,
    ResponseQAEntry,
    ResponseSessionContextEntry,
    ResponseSkillEntry,
    ResponseToolEntry,
)

__all__ = [
    "RecallResponse",
    "ResponseAgentTraceEntry",
    "ResponseCodeEntry",
    "ResponseGraphEntry",
    "ResponseMarkerEntry",
    "ResponseQAEntry",
    "ResponseSessionContextEntry",
    "ResponseSkillEntry",
    "ResponseToolEntry",
]
