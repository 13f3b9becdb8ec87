"""Session guidance: the active entries of a profile rendered as one block, and storing new ones.

The ``qa`` profile holds guidance learned from conversation turns (goals, rules, preferences,
lessons learned); the ``agent`` profile holds lessons from agent traces (failure lessons, tool
rules, environment facts, workflow state, success patterns). The two never mix: a block renders
one profile. Rendering is read-only and deterministic: within the character budgets the newest
entries of each section are kept, and each section lists them oldest to newest, so under the
block's instruction a later item wins a conflict.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID, uuid4

from engramdb.models.records import utcnow
from engramdb.models.sessions import ContextProfile, ContextRecord, sections_for
from engramdb.storage.base import Store

__all__ = [
    "BLOCK_TITLE",
    "MAX_CONTENT_CHARS",
    "MIN_CONFIDENCE",
    "PER_SECTION_BUDGET",
    "TOTAL_BUDGET",
    "add_guidance",
    "render_guidance",
    "select_guidance",
]

BLOCK_TITLE = "## Active session guidance"
_CONFLICT_RULE = (
    "Items are listed oldest to newest within each section. When guidance conflicts, prefer the "
    "later item."
)
#: Characters of entry content one section / the whole block may hold.
PER_SECTION_BUDGET = 400
TOTAL_BUDGET = 1_200
#: Longest content kept for one entry.
MAX_CONTENT_CHARS = 280
#: Inferred guidance below this confidence is not stored.
MIN_CONFIDENCE = 0.75


def _heading(section: str) -> str:
    return section.replace("_", " ").capitalize()


def select_guidance(
    entries: Sequence[ContextRecord], profile: ContextProfile
) -> list[ContextRecord]:
    """The entries of ``profile`` the block shows: within the budgets, newest first per
    section, returned in section order, oldest to newest within each."""
    sections = sections_for(profile)
    chosen: dict[str, list[ContextRecord]] = {s: [] for s in sections}
    used_total = 0
    used: dict[str, int] = dict.fromkeys(sections, 0)
    for entry in sorted(entries, key=lambda e: e.seq, reverse=True):  # newest first
        if entry.context_profile != profile or entry.section not in chosen:
            continue
        cost = len(entry.content)
        if used[entry.section] + cost > PER_SECTION_BUDGET or used_total + cost > TOTAL_BUDGET:
            continue
        chosen[entry.section].append(entry)
        used[entry.section] += cost
        used_total += cost
    return [e for section in sections for e in sorted(chosen[section], key=lambda e: e.seq)]


def render_guidance(entries: Sequence[ContextRecord], profile: ContextProfile) -> str:
    """The guidance block of ``profile`` ("" when it has no entries)."""
    picked = select_guidance(entries, profile)
    if not picked:
        return ""
    lines = [BLOCK_TITLE, _CONFLICT_RULE]
    for section in sections_for(profile):
        shown = [e for e in picked if e.section == section]
        if shown:
            lines.append(f"### {_heading(section)}")
            lines += [f"- {entry.content}" for entry in shown]
    return "\n".join(lines)


async def add_guidance(
    store: Store,
    *,
    user_id: UUID,
    session_id: str,
    profile: ContextProfile,
    section: str,
    content: str,
    confidence: float = 1.0,
    source_ids: Sequence[str] = (),
) -> tuple[ContextRecord, bool]:
    """Store one guidance entry (the caller validated profile and section); content is cut to
    :data:`MAX_CONTENT_CHARS`. Returns the stored entry and whether it is new."""
    now = utcnow()
    text = " ".join(content.split())[:MAX_CONTENT_CHARS]
    record = ContextRecord(
        id=uuid4(),
        user_id=user_id,
        session_id=session_id,
        context_profile=profile,
        section=section,
        content=text,
        confidence=max(0.0, min(1.0, float(confidence))),
        source_ids=list(source_ids),
        created_at=now,
        updated_at=now,
    )
    return await store.add_context_entry(record)
