"""A snapshot of stored graph data, as ``get_graph()`` returns it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from engramdb.models.records import Edge, Node

__all__ = ["GraphSnapshot"]


class GraphSnapshot(BaseModel):
    """Nodes and edges of some datasets, each with all its stored fields."""

    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    truncated: bool = False

    def nodes_of_type(self, type_: str) -> list[Node]:
        return [n for n in self.nodes if n.type == type_]

    def node_named(self, name: str, type_: str | None = None) -> Node | None:
        """The first node whose name matches case-insensitively (optionally of one type)."""
        wanted = name.casefold()
        for node in self.nodes:
            if node.name.casefold() == wanted and (type_ is None or node.type == type_):
                return node
        return None
