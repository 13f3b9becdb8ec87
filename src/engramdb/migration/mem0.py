"""mem0 exports: the platform's JSON (``{"results": [...]}``) and the OSS ``get_all()`` dumps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engramdb.migration.base import (
    DEFAULT_MAX_EXPORT_BYTES,
    ImportedRecord,
    MemorySource,
    drop_empty,
)

__all__ = ["Mem0Source"]

#: Where a mem0 memory keeps its text, in the order looked at.
_CONTENT_KEYS = ("memory", "text", "data", "content")
#: The wrappers a mem0 export puts its list of memories under.
_LIST_KEYS = ("results", "memories", "items")
#: The scope ids of a mem0 memory, kept in the document's metadata.
_SCOPE_KEYS = ("user_id", "agent_id", "run_id", "app_id", "actor_id")


class Mem0Source(MemorySource):
    """A mem0 export: a JSON list of memories, or an object with the list under ``results``
    (mem0 platform / OSS ``get_all()``), ``memories`` or ``items``; a path to the file or the
    already-loaded JSON (e.g. what the ``mem0ai`` client returned).

    Each memory becomes one document: its text (plus ``Categories: ...`` when it has some),
    with ``external_metadata`` holding the memory's ``id`` (``external_id``), ``user_id`` /
    ``agent_id`` / ``run_id``, ``categories``, ``created_at`` (the document's date),
    ``updated_at``, ``hash`` and its own ``metadata`` (as ``mem0_metadata``). mem0 exports hold
    no graph, so ``"hybrid"`` is the same as ``"re-derive"``.
    """

    source_system = "mem0"
    export_name = "mem0 export"

    def __init__(
        self, data: str | Path | list[Any] | dict[str, Any], mode: str = "re-derive"
    ) -> None:
        super().__init__(mode=mode)
        self._data = data

    def read(self, *, max_file_bytes: int = DEFAULT_MAX_EXPORT_BYTES) -> list[ImportedRecord]:
        raw = self._load(max_file_bytes)
        items, where = self._memories(raw)
        records: list[ImportedRecord] = []
        for index, item in enumerate(items):
            at = f"{where}[{index}]"
            content = self._text(item, _CONTENT_KEYS, at)
            if content is None or not content.strip():
                raise self._fail(f"{at} has no memory text", "each memory needs a 'memory' string")
            categories = item.get("categories") or []
            if isinstance(categories, str):
                categories = [categories]
            if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
                raise self._fail(f"{at}.categories is not a list of strings", "export it again")
            text = content.strip()
            if categories:
                text = f"{text}\nCategories: {', '.join(categories)}"
            extra = item.get("metadata")
            if extra is not None and not isinstance(extra, dict):
                raise self._fail(f"{at}.metadata is not an object", "export it again")
            metadata = drop_empty(
                {
                    **{key: item.get(key) for key in _SCOPE_KEYS},
                    "categories": categories,
                    "created_at": self._timestamp(item, "created_at", at),
                    "updated_at": self._timestamp(item, "updated_at", at),
                    "hash": item.get("hash"),
                    "mem0_metadata": extra,
                }
            )
            external_id = item.get("id")
            records.append(
                ImportedRecord(
                    kind="memory",
                    external_id=str(external_id) if external_id else f"mem0-{index}",
                    text=text,
                    metadata=metadata,
                )
            )
        return records

    def _memories(self, raw: object) -> tuple[list[dict[str, Any]], str]:
        """The export's list of memories and how messages name it."""
        if isinstance(raw, list):
            return self._objects(raw, "the list"), "the list"
        if isinstance(raw, dict) and any(key in raw for key in _LIST_KEYS):
            key, items = self._collection(raw, _LIST_KEYS)
            return items, key
        raise self._fail(
            "is not a mem0 export",
            "expected a list of memories or an object with them under 'results' (mem0 platform "
            "and OSS get_all()) or 'memories'",
        )
