"""``cognee.modules.data.methods``: ``load_or_create_datasets``."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from engramdb.models.records import Dataset, User

__all__ = ["load_or_create_datasets"]


async def load_or_create_datasets(
    dataset_names: Sequence[str | UUID],
    existing_datasets: Sequence[Dataset] = (),
    user: User | None = None,
) -> list[Dataset]:
    """The datasets named, in order: one of ``existing_datasets`` with that name or id, else the
    user's own dataset of that name (created if missing); a UUID needs write permission."""
    from engramdb.access.permissions import dataset_for_write
    from engramdb.engine import get_engine

    engine = get_engine()
    owner = await engine.resolve_user(user)
    known = {d.name: d for d in existing_datasets} | {str(d.id): d for d in existing_datasets}
    found: list[Dataset] = []
    for ref in dataset_names:
        hit = known.get(str(ref))
        found.append(hit if hit is not None else await dataset_for_write(engine.store, owner, ref))
    return found
