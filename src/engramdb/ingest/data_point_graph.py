"""Turn custom graph models (:class:`~engramdb.models.datapoints.DataPoint` trees) into graph
nodes and edges, through the same :class:`~engramdb.ingest.graph_builder.GraphBuilder` as a
document's chunks and entities (one transaction per document, provenance, weights).

* Each model instance is a node of type ``<ClassName>``; its id is scoped to the dataset
  (``stable_id("data_point", dataset, DataPoint.id)``), the DataPoint's own id is kept in
  ``properties["data_point_id"]``. Its scalar fields are its properties.
* A field holding a model, a list of them, ``(Edge, model)`` / ``(Edge, [models])`` or an
  ``Edge`` with a ``target`` is an edge named after the field (or ``Edge.relationship_type``),
  with the Edge's metadata (weight, weights, properties, edge_text) as properties.
* The values of ``metadata["index_fields"]`` are the node's text. It is embedded into the
  entity collection (graph searches find it like an entity) and, for models that stand on
  their own (``add_data_points``), also into the chunk collection with full text (CHUNKS and
  CHUNKS_LEXICAL find it as a passage). Models drawn from a chunk (``cognify(graph_model=)``)
  hang off that chunk with ``contains`` edges instead, as entities do.
* ``importance_weight`` is the node's weight (the document's when None); ``belongs_to_set``
  (names, or DataPoints whose ``name`` is used) adds node-set tags.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from pydantic import BaseModel

from engramdb.graph_schema import CHUNK_COLLECTION, ENTITY_COLLECTION
from engramdb.models.datapoints import DataPoint, Edge
from engramdb.models.records import stable_id

if TYPE_CHECKING:
    from engramdb.ingest.graph_builder import GraphBuilder

__all__ = ["add_model_graph", "data_point_node_id", "data_point_node_ids", "model_fingerprint"]

#: DataPoint's own bookkeeping fields: not user properties of the node.
_BASE_FIELDS = frozenset(DataPoint.model_fields)
_RESERVED = frozenset({"node_set", "internal"})


def data_point_node_id(dataset_id: UUID, model: BaseModel) -> UUID:
    """The graph node id of a model instance in a dataset."""
    if isinstance(model, DataPoint):
        return stable_id("data_point", dataset_id, model.id)
    return stable_id("model", dataset_id, type(model).__name__, _scalar_json(model))


def data_point_node_ids(dataset_id: UUID, roots: Sequence[BaseModel]) -> set[UUID]:
    """The node ids of every model reachable from ``roots``."""
    seen: set[int] = set()
    return {
        data_point_node_id(dataset_id, model)
        for root in roots
        for model, _ in _walk(root, seen_ids=seen)
    }


def model_fingerprint(models: Sequence[BaseModel]) -> str:
    """A canonical text of every instance reachable from ``models`` (ids, fields, edges), so
    the same data points added twice have the same content hash."""
    seen: dict[int, str] = {}
    for root in models:
        for model, _ in _walk(root, seen_ids=set()):
            seen.setdefault(id(model), f"{type(model).__name__}:{_full_json(model)}")
    return "\n".join(sorted(seen.values()))


def add_model_graph(
    builder: GraphBuilder,
    roots: Sequence[BaseModel],
    *,
    locator: dict[str, Any],
    passage: bool,
    linked_from: UUID | None = None,
) -> list[UUID]:
    """Add the nodes and edges of ``roots`` (and of every model reachable from them) to
    ``builder``; return their node ids. ``passage`` also indexes each node's text as a chunk;
    ``linked_from`` (a chunk id) gets a ``contains`` edge to each node."""
    ids: dict[int, UUID] = {}
    found: list[UUID] = []
    seen_ids: set[int] = set()
    for root in roots:
        for model, relations in _walk(root, seen_ids=seen_ids):
            node_id = ids.setdefault(id(model), data_point_node_id(builder.dataset_id, model))
            _add_node(builder, model, node_id, locator, passage)
            found.append(node_id)
            if linked_from is not None:
                builder.edge(linked_from, "contains", node_id, weight=_weight(builder, model))
            for relation, target, properties in relations:
                target_id = ids.setdefault(
                    id(target), data_point_node_id(builder.dataset_id, target)
                )
                builder.edge(
                    node_id, relation, target_id, properties, weight=_weight(builder, model)
                )
    return list(dict.fromkeys(found))


def _add_node(
    builder: GraphBuilder,
    model: BaseModel,
    node_id: UUID,
    locator: dict[str, Any],
    passage: bool,
) -> None:
    text = _index_text(model)
    props: dict[str, Any] = {
        k: v for k, v in _scalars(model).items() if k not in _RESERVED and k not in locator
    }
    props.update(locator)
    if isinstance(model, DataPoint):
        props["data_point_id"] = str(model.id)
        props["version"] = model.version
        props["index_fields"] = list(model.metadata.get("index_fields") or [])
    builder.node(
        node_id,
        type(model).__name__,
        _name(model, text),
        text,
        props,
        weight=_weight_or_none(model),
        tags=_tags(model),
    )
    if not text:
        return
    builder.to_embed.append((node_id, ENTITY_COLLECTION, text))
    if passage:
        builder.to_embed.append((node_id, CHUNK_COLLECTION, text))
        builder.lexical.append((node_id, text))


# --- walking -----------------------------------------------------------------------------------

Relation = tuple[str, BaseModel, dict[str, Any]]


def _walk(root: BaseModel, *, seen_ids: set[int]) -> Iterable[tuple[BaseModel, list[Relation]]]:
    """Every model reachable from ``root`` once (by object identity), with its outgoing
    relations; iterative, so deep or cyclic trees are fine."""
    stack = [root]
    while stack:
        model = stack.pop()
        if id(model) in seen_ids:
            continue
        seen_ids.add(id(model))
        relations = list(_relations(model))
        yield model, relations
        stack.extend(target for _, target, _ in reversed(relations))


def _relations(model: BaseModel) -> Iterable[Relation]:
    for name in type(model).model_fields:
        if name in _BASE_FIELDS:
            continue
        yield from _edges_of(name, getattr(model, name, None), None)


def _edges_of(field: str, value: Any, meta: Edge[Any, Any, Any] | None) -> Iterable[Relation]:
    if isinstance(value, Edge):
        if value.target is not None:
            yield (value.relationship_type or field, value.target, value.to_properties())
        return
    if isinstance(value, BaseModel):
        relation = (meta.relationship_type if meta is not None else None) or field
        yield (relation, value, meta.to_properties() if meta is not None else {})
        return
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], Edge):
        yield from _edges_of(field, value[1], value[0])
        return
    if isinstance(value, list | tuple | set):
        for item in value:
            yield from _edges_of(field, item, meta)


def _is_relation(value: Any) -> bool:
    if isinstance(value, BaseModel):
        return True
    if isinstance(value, list | tuple | set):
        return any(_is_relation(v) for v in value)
    return False


# --- node contents -----------------------------------------------------------------------------


def _scalars(model: BaseModel) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in type(model).model_fields:
        if name in _BASE_FIELDS:
            continue
        value = getattr(model, name, None)
        if _is_relation(value):
            continue
        out[name] = _jsonable(value)
    return out


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value, default=_default))
    except (TypeError, ValueError):
        return str(value)


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set):
        return sorted(value, key=str)
    return str(value)


def _scalar_json(model: BaseModel) -> str:
    return json.dumps(_scalars(model), sort_keys=True, default=str)


def _full_json(model: BaseModel) -> str:
    own = _scalars(model)
    if isinstance(model, DataPoint):
        own["__id__"] = str(model.id)
        own["__weight__"] = model.importance_weight
        own["__sets__"] = _tags(model)
    own["__edges__"] = [
        (relation, type(target).__name__, _identity(target), props)
        for relation, target, props in _relations(model)
    ]
    return json.dumps(own, sort_keys=True, default=str)


def _identity(model: BaseModel) -> str:
    return str(model.id) if isinstance(model, DataPoint) else _scalar_json(model)


def _index_fields(model: BaseModel) -> list[str]:
    if isinstance(model, DataPoint):
        return list(model.metadata.get("index_fields") or [])
    return [n for n, v in _scalars(model).items() if isinstance(v, str)]


def _index_text(model: BaseModel) -> str:
    parts = []
    for name in _index_fields(model):
        value = getattr(model, name, None)
        if value is None or _is_relation(value):
            continue
        text = value if isinstance(value, str) else json.dumps(_jsonable(value))
        if text.strip():
            parts.append(text.strip())
    return "\n".join(parts)


def _name(model: BaseModel, text: str) -> str:
    for candidate in ("name", "title"):
        value = getattr(model, candidate, None)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return text.split("\n", 1)[0][:200] if text else type(model).__name__


def _weight_or_none(model: BaseModel) -> float | None:
    weight = getattr(model, "importance_weight", None) if isinstance(model, DataPoint) else None
    return float(weight) if isinstance(weight, int | float) else None


def _weight(builder: GraphBuilder, model: BaseModel) -> float:
    weight = _weight_or_none(model)
    return builder.weight if weight is None else weight


def _tags(model: BaseModel) -> list[str]:
    if not isinstance(model, DataPoint) or not model.belongs_to_set:
        return []
    names = []
    for item in model.belongs_to_set:
        name = item if isinstance(item, str) else getattr(item, "name", None)
        if isinstance(name, str) and name:
            names.append(name)
    return names
