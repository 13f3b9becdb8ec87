"""The dates a chunk's document states, as HYBRID_COMPLETION and TEMPORAL label passages with
them: read from each document's ``external_metadata`` (see :mod:`.dates`)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engramdb.models.records import Node
from engramdb.retrieval.base import RetrievalContext
from engramdb.retrieval.dates import DateInterval, dates_from_metadata
from engramdb.retrieval.passages import Passage

__all__ = ["date_label", "document_dates", "label_dates"]


async def document_dates(
    ctx: RetrievalContext, chunks: Sequence[Node]
) -> dict[str, list[DateInterval]]:
    """The dates each chunk's document states in its ``external_metadata``, by data id (one
    node read for all of them; documents without a date map to [])."""
    data_ids: list[UUID] = []
    for chunk in chunks:
        raw = chunk.properties.get("data_id")
        try:
            data_ids.append(UUID(str(raw)))
        except ValueError:
            continue
    docs = await ctx.store.get_nodes(list(dict.fromkeys(data_ids)))
    out: dict[str, list[DateInterval]] = {}
    for doc in docs:
        metadata = doc.properties.get("external_metadata")
        out[str(doc.id)] = dates_from_metadata(metadata if isinstance(metadata, dict) else None)
    return out


def date_label(interval: DateInterval) -> str:
    """Compact human date: "8 May 2023", "May 2023" or "2019" (by granularity)."""
    if interval.granularity == "day":
        return f"{interval.start.day} {interval.start:%B %Y}"
    if interval.granularity == "month" and interval.start.month == interval.end.month:
        return f"{interval.start:%B %Y}"
    if interval.granularity == "month":
        return f"{interval.start:%B %Y} – {interval.end:%B %Y}"
    return str(interval.start.year)


async def label_dates(ctx: RetrievalContext, passages: Sequence[Passage]) -> None:
    """Set each passage's ``date`` label from its document's metadata date, if any."""
    dates = await document_dates(ctx, list({p.chunk.id: p.chunk for p in passages}.values()))
    for p in passages:
        found = dates.get(str(p.chunk.properties.get("data_id")), [])
        p.date = date_label(found[0]) if found else None
