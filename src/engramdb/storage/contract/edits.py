"""Edits of ingested graph content: rewriting nodes and merging duplicate entities.

One concern of the :class:`~engramdb.storage.base.Store` contract; the semantics are in each
method's docstring. A backend implements :class:`~engramdb.storage.base.Store`, which
combines every concern.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from uuid import UUID

from engramdb.storage.types import EntityMerge, MergeReport, NodeRewrite

__all__ = ["EditStore"]


class EditStore(ABC):
    """Edits of ingested graph content (cognee's consolidation pipelines run on these).

    Rules every backend keeps:

    * Each call is one transaction: after a crash either every listed node is rewritten (every
      merge done) or none is.
    * Only ingested nodes of ``dataset_id`` are edited (derived nodes are improve's, and are
      rewritten by improve); anything else is refused before anything is written.
    * A vector of a :class:`NodeRewrite` replaces the node's vector of that collection, and must
      have the dimension the collection already holds in the dataset (EmbeddingMismatchError).
    """

    @abstractmethod
    async def rewrite_nodes(self, dataset_id: UUID, rewrites: Sequence[NodeRewrite]) -> int:
        """Replace each listed node's text, properties and vectors (see :class:`NodeRewrite`);
        returns how many nodes were rewritten. Raises NotFoundError when a node does not exist
        as an ingested node of the dataset, EngramValidationError when one is listed twice."""

    @abstractmethod
    async def merge_entities(self, dataset_id: UUID, merges: Sequence[EntityMerge]) -> MergeReport:
        """Fold each merge's absorbed entities into its survivor, in one transaction:

        * every edge touching an absorbed entity is re-pointed onto the survivor (direction and
          relation kept) as the edge ``(source, relation, target)`` would be ingested; an edge
          that becomes a self-loop is dropped, and one the survivor already has is dropped
          after its provenance is added to the survivor's edge;
        * the survivor's provenance gains the absorbed entities' (so deleting a data item still
          deletes exactly what only that item supports);
        * weights follow the importance-weight rule that nothing rewrites a stored weight: the
          survivor and the edges it already had keep theirs, a re-pointed edge keeps its own;
        * the absorbed entities are deleted with their vectors and full-text rows, and the
          survivor takes the merge's text, properties and vectors.

        Raises EngramValidationError when a node is not an ingested ``Entity`` of the dataset,
        is listed in two merges or is its own survivor (NotFoundError when it does not exist);
        nothing is written then."""
