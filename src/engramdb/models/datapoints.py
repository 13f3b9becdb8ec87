"""Custom graph models: :class:`DataPoint` (a node type of your own) and :class:`Edge`.

A ``DataPoint`` subclass is a pydantic model whose instances become graph nodes of type
``<ClassName>`` (``add_data_points()``, ``cognify(graph_model=...)``). Its fields are:

* scalars (str, numbers, bools, dates, dicts and lists of them): the node's properties;
* another ``DataPoint``, a list of them, ``(Edge(...), DataPoint)`` or ``(Edge(...), [DataPoint,
  ...])``, or an :class:`Edge` value with a ``target``: edges from this node, named after the
  field (or the Edge's ``relationship_type``).

``metadata = {"index_fields": [...]}`` names the fields whose text is embedded and full-text
indexed (the node is found by search on them); ``"identity_fields"`` derives the id from those
fields (so the same thing named twice is one node). ``Annotated[str, Embeddable()]`` and
``Annotated[str, Dedup()]`` declare the same per field. The shapes are cognee's
(``cognee.infrastructure.engine.DataPoint``), so cognee models run unchanged.
"""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from typing import Any, Generic, NotRequired
from uuid import NAMESPACE_OID, UUID, uuid4, uuid5

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict, TypeVar

__all__ = ["DataPoint", "Dedup", "Edge", "Embeddable", "MetaData"]


class MetaData(TypedDict):
    """``DataPoint.metadata``: what is indexed, and what identifies a node."""

    type: NotRequired[str]
    index_fields: list[str]
    identity_fields: NotRequired[list[str]]


class _Embeddable:
    def __init__(self, description: str = "") -> None:
        self.description = description

    def __repr__(self) -> str:
        return f"Embeddable({self.description!r})"


class _Dedup:
    def __init__(self, description: str = "") -> None:
        self.description = description

    def __repr__(self) -> str:
        return f"Dedup({self.description!r})"


def Embeddable(description: str = "") -> Any:
    """``Annotated[str, Embeddable()]``: index this field (as if listed in ``index_fields``)."""
    return _Embeddable(description)


def Dedup(description: str = "") -> Any:
    """``Annotated[str, Dedup()]``: derive the id from this field (``identity_fields``)."""
    return _Dedup(description)


def _now_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


class DataPoint(BaseModel):
    """A node of a custom graph model (cognee's ``DataPoint``); subclass it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: UUID = Field(default_factory=uuid4)
    created_at: int = Field(default_factory=_now_ms)
    updated_at: int = Field(default_factory=_now_ms)
    ontology_valid: bool = False
    ontology_uri: str | None = None
    version: int = 1
    topological_rank: int | None = 0
    metadata: MetaData = {"index_fields": []}
    type: str = "DataPoint"
    belongs_to_set: list[DataPoint] | list[str] | None = None
    source_pipeline: str | None = None
    source_task: str | None = None
    source_node_set: str | None = None
    source_user: str | None = None
    source_content_hash: str | None = None
    feedback_weight: float = 0.5
    importance_weight: float | None = 0.5

    def __init__(self, **data: Any) -> None:
        explicit_id = "id" in data
        super().__init__(**data)
        object.__setattr__(self, "type", type(self).__name__)
        if not explicit_id:
            fields = type(self)._identity_fields()
            if fields and all(f in self.__dict__ for f in fields):
                object.__setattr__(
                    self, "id", type(self).id_for(*(self.__dict__[f] for f in fields))
                )

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if "metadata" in inspect.get_annotations(cls):
            return  # declared explicitly: the markers are not read
        embeddable, dedup = [], []
        for name, info in cls.model_fields.items():
            for marker in info.metadata:
                if isinstance(marker, _Embeddable):
                    embeddable.append(name)
                if isinstance(marker, _Dedup):
                    dedup.append(name)
        if embeddable or dedup:
            derived: dict[str, Any] = {"index_fields": embeddable}
            if dedup:
                derived["identity_fields"] = dedup
            cls.model_fields["metadata"].default = derived
            cls.model_rebuild(force=True, raise_errors=False)  # re-read: validation uses it

    @classmethod
    def _identity_fields(cls) -> list[str] | None:
        default = cls.model_fields["metadata"].default or {}
        fields = default.get("identity_fields")
        return list(fields) if fields else None

    @classmethod
    def id_for(cls, *values: Any) -> UUID:
        """The id of the node of this type whose identity fields have these values."""
        joined = "|".join(
            v.lower().replace(" ", "_").replace("'", "") if isinstance(v, str) else str(v)
            for v in values
        )
        return uuid5(NAMESPACE_OID, f"{cls.__name__}:{joined}")

    @classmethod
    def get_embeddable_data(cls, data_point: DataPoint) -> Any:
        """The value of the first index field (stripped when a string), or None."""
        fields = data_point.metadata.get("index_fields") or []
        if not fields or not hasattr(data_point, fields[0]):
            return None
        value = getattr(data_point, fields[0])
        return value.strip() if isinstance(value, str) else value

    @classmethod
    def get_embeddable_properties(cls, data_point: DataPoint) -> list[Any]:
        return [getattr(data_point, f, None) for f in data_point.metadata.get("index_fields") or []]

    @classmethod
    def get_embeddable_property_names(cls, data_point: DataPoint) -> list[str]:
        return list(data_point.metadata.get("index_fields") or [])

    def update_version(self) -> None:
        self.version += 1
        self.updated_at = _now_ms()

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, json_str: str) -> DataPoint:
        return cls.model_validate_json(json_str)

    def to_dict(self, **kwargs: Any) -> dict[str, Any]:
        return self.model_dump(**kwargs)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DataPoint:
        return cls.model_validate(data)


Source = TypeVar("Source", bound=DataPoint, default=DataPoint)
Target = TypeVar("Target", bound=DataPoint, default=DataPoint)
Relationship = TypeVar("Relationship", default=str | None)


class Edge(BaseModel, Generic[Source, Target, Relationship]):
    """An edge's metadata (cognee's ``Edge``): ``(Edge(weight=0.9, relationship_type="friend_of"),
    target)`` on a DataPoint field, or an Edge value with its ``target`` set. The relation is
    ``relationship_type``, else the field's name; the other fields become edge properties."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    source: Source | None = None
    target: Target | None = None
    relationship_type: Relationship = None  # type: ignore[assignment]
    weight: float | None = None
    weights: dict[str, float] | None = None
    properties: dict[str, Any] | None = None
    edge_text: str | None = None

    def to_properties(self) -> dict[str, Any]:
        """The edge's stored properties: every field set, endpoints excluded, ``weights``
        also flattened to ``weight_<name>``."""
        data = self.model_dump(mode="json", exclude_none=True, exclude={"source", "target"})
        for name, value in (self.weights or {}).items():
            data[f"weight_{name}"] = value
        return data


DataPoint.model_rebuild()
