"""How LangGraph store items map onto engramdb: dataset names, stored metadata, filters, text.

* A namespace ``("memories", "user-1")`` is one engramdb dataset, named
  ``<prefix>.memories.user-2d1``: labels joined by ``.`` (LangGraph forbids ``.`` inside a label),
  each character other than an ASCII letter, digit or ``_`` written as ``-`` plus the hex of its
  UTF-8 bytes, so the name is a valid dataset name and decodes back to the namespace. A name
  longer than a dataset name may be is ``<prefix>.-x<sha256>`` instead; such a namespace is read
  from its items.
* An item ``(namespace, key)`` is one data item of that dataset, under a data id derived from
  the user, the dataset name and the key. Its ``external_metadata`` holds, under
  :data:`META_KEY`, the namespace, the key, the value as JSON text (so it round-trips exactly),
  the creation and update times and whether it is indexed; its text is what gets embedded.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from langgraph.store.base import IndexConfig, MatchCondition
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from engramdb.errors import EngramValidationError
from engramdb.models.records import stable_id
from engramdb.validation import MAX_DATASET_NAME

__all__ = [
    "FIELD_SEPARATOR",
    "MAX_VALUE_BYTES",
    "META_KEY",
    "StoredItem",
    "dataset_name",
    "decode_dataset_name",
    "index_fields",
    "index_texts",
    "item_data_id",
    "matches_filter",
    "matches_namespace",
]

#: The key of ``external_metadata`` that holds a store item.
META_KEY = "langgraph_store"
#: The largest value (as UTF-8 JSON) an item may hold: what fits in a data item's 64 kB of
#: ``external_metadata`` beside the item's other fields.
MAX_VALUE_BYTES = 56 * 1024
_HASHED = "-x"


def _encode_label(label: str) -> str:
    out: list[str] = []
    for ch in label:
        if (ch.isascii() and ch.isalnum()) or ch == "_":
            out.append(ch)
        else:
            out.extend(f"-{byte:02x}" for byte in ch.encode("utf-8"))
    return "".join(out)


def _decode_label(text: str) -> str:
    raw = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "-":
            raw.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            raw.extend(text[i].encode("ascii"))
            i += 1
    return raw.decode("utf-8")


def dataset_name(prefix: str, namespace: tuple[str, ...]) -> str:
    """The dataset that holds ``namespace``'s items."""
    name = ".".join([prefix, *(_encode_label(label) for label in namespace)])
    if len(name) <= MAX_DATASET_NAME:
        return name
    digest = hashlib.sha256("\x1f".join(namespace).encode("utf-8")).hexdigest()
    return f"{prefix}.{_HASHED}{digest}"


def decode_dataset_name(prefix: str, name: str) -> tuple[str, ...] | None:
    """The namespace a dataset name encodes; None when the name is not one of this prefix's,
    or is a hashed name (its namespace is read from its items)."""
    head = prefix + "."
    if not name.startswith(head):
        return None
    rest = name[len(head) :]
    if rest.startswith(_HASHED):
        return None
    try:
        return tuple(_decode_label(part) for part in rest.split("."))
    except (ValueError, UnicodeError, IndexError):
        return None


def is_store_dataset(prefix: str, name: str) -> bool:
    return name.startswith(prefix + ".")


def item_data_id(user_id: UUID, dataset: str, key: str) -> UUID:
    """The data id of item ``key`` of a namespace's dataset, for one user."""
    return stable_id("langgraph-store-item", user_id, dataset, key)


class StoredItem:
    """One store item as kept in a data item's ``external_metadata``."""

    __slots__ = ("created_at", "indexed", "key", "namespace", "updated_at", "value")

    def __init__(
        self,
        *,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime,
        updated_at: datetime,
        indexed: bool,
    ) -> None:
        self.namespace = namespace
        self.key = key
        self.value = value
        self.created_at = created_at
        self.updated_at = updated_at
        self.indexed = indexed

    def to_metadata(self) -> dict[str, Any]:
        try:
            value_json = json.dumps(self.value, ensure_ascii=False, allow_nan=True)
        except (TypeError, ValueError) as exc:
            raise EngramValidationError(
                f"the value of store item {self.key!r} in namespace {self.namespace!r} is not "
                f"JSON-serialisable ({exc}); store strings, numbers, booleans, None, lists and "
                "dicts"
            ) from exc
        if len(value_json.encode("utf-8")) > MAX_VALUE_BYTES:
            raise EngramValidationError(
                f"the value of store item {self.key!r} in namespace {self.namespace!r} is "
                f"{len(value_json.encode('utf-8'))} bytes as JSON; EngramdbStore keeps at most "
                f"{MAX_VALUE_BYTES} bytes per item: store large content elsewhere (or remember() "
                "it as a document) and keep a reference in the item"
            )
        return {
            META_KEY: {
                "namespace": list(self.namespace),
                "key": self.key,
                "value": value_json,
                "created_at": self.created_at.isoformat(),
                "updated_at": self.updated_at.isoformat(),
                "indexed": self.indexed,
            }
        }

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> StoredItem | None:
        """The item a data item holds; None when it holds none (not a store item)."""
        held = metadata.get(META_KEY)
        if not isinstance(held, dict):
            return None
        return cls(
            namespace=tuple(held["namespace"]),
            key=held["key"],
            value=json.loads(held["value"]),
            created_at=datetime.fromisoformat(held["created_at"]),
            updated_at=datetime.fromisoformat(held["updated_at"]),
            indexed=bool(held["indexed"]),
        )


#: Between two field texts of an item's document (each field is its own chunk, see
#: :class:`engramdb.integrations.langgraph._chunker.FieldChunker`).
FIELD_SEPARATOR = "\n\n"


def index_texts(value: Mapping[str, Any], fields: Sequence[str]) -> list[str]:
    """The texts embedded for ``value``, one per field path present (LangGraph's path syntax:
    ``"a.b"``, ``"list[*].text"`` gives one text per element; ``"$"`` is the whole value as
    JSON). Empty when no field is present: the item is not indexed."""
    texts: list[str] = []
    for path in fields:
        if path == "$":
            texts.append(json.dumps(value, ensure_ascii=False, allow_nan=True))
        else:
            texts.extend(t for t in get_text_at_path(value, tokenize_path(path)) if t.strip())
    return texts


_DEFAULT_FIELDS = ("$",)
_ALLOWED_INDEX_KEYS = frozenset({"fields", "dims"})


def index_fields(index: IndexConfig | None) -> tuple[str, ...]:
    """The value fields a store embeds, from its ``index`` config (checked)."""
    if index is None:
        return _DEFAULT_FIELDS
    unknown = sorted(set(index) - _ALLOWED_INDEX_KEYS)
    if unknown:
        raise EngramValidationError(
            f"EngramdbStore index config: {', '.join(map(repr, unknown))} not supported; items "
            "are embedded by the engine's embedder (configure it with EMBEDDING_* settings), so "
            "pass only index={'fields': [...]}"
        )
    fields = index.get("fields") or list(_DEFAULT_FIELDS)
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise EngramValidationError(
            f"index fields must be a list of field paths such as ['text', 'meta.title'], "
            f"got {fields!r}"
        )
    return tuple(fields)


_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether an item's value passes a LangGraph search filter: every filter key (a field
    name, or a dotted path to a nested field) must match.
    A plain filter value matches by equality (dicts field by field, lists element by element);
    a dict of ``$eq``/``$ne``/``$gt``/``$gte``/``$lt``/``$lte`` compares (ordering numerically)."""
    if not filter:
        return True
    return all(_match(_field(value, name), wanted) for name, wanted in filter.items())


def _field(value: Mapping[str, Any], name: str) -> Any:
    """``value[name]``, or for a dotted name absent as such the nested field it names."""
    if name in value or "." not in name:
        return value.get(name)
    current: Any = value
    for part in name.split("."):
        if not isinstance(current, Mapping):
            return None
        current = current.get(part)
    return current


def _match(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        operators = [k for k in wanted if isinstance(k, str) and k.startswith("$")]
        if operators:
            return all(_compare(actual, op, operand) for op, operand in wanted.items())
        return isinstance(actual, Mapping) and all(
            _match(actual.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(actual) == len(wanted)
            and all(_match(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)


def _compare(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return bool(actual == operand)
    if operator == "$ne":
        return bool(actual != operand)
    if operator not in _OPERATORS:
        raise EngramValidationError(
            f"unsupported filter operator {operator!r}; use one of {', '.join(_OPERATORS)}"
        )
    try:
        left, right = float(actual), float(operand)
    except (TypeError, ValueError):
        return False  # a missing or non-numeric field never satisfies an ordering
    if math.isnan(left) or math.isnan(right):
        return False
    if operator == "$gt":
        return left > right
    if operator == "$gte":
        return left >= right
    if operator == "$lt":
        return left < right
    return left <= right


def matches_namespace(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """Whether a namespace passes a ``list_namespaces`` prefix or suffix (``*``: any label)."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    if not path:
        return True
    return all(want in ("*", got) for got, want in zip(part, path, strict=True))
