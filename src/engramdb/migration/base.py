"""What every memory source shares: the import modes, reading an export, and turning its
records into the documents ``remember()`` ingests.

A source parses its export into :class:`ImportedRecord` objects (one per memory, memory block,
message batch, passage, episode, entity or fact) and :meth:`MemorySource.documents` turns them
into :class:`~engramdb.ingest.types.LoadedDocument` objects, each with its own
``external_metadata`` (the source's ids, user ids, categories and timestamps; ``created_at`` is
the document's date, which TEMPORAL recall reads) and the node-set tag ``import:<system>``.
"""

from __future__ import annotations

import hashlib
import json
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Literal

from engramdb.errors import EngramValidationError
from engramdb.extract.types import ChunkExtraction
from engramdb.ingest.types import LoadedDocument
from engramdb.paths import user_path
from engramdb.validation import validate_external_metadata

__all__ = [
    "IMPORT_MODES",
    "ImportMode",
    "ImportedRecord",
    "MemorySource",
    "RecordKind",
]

#: cognee's import modes, in cognee's order (see :class:`MemorySource` for what each does here).
IMPORT_MODES: tuple[str, ...] = ("re-derive", "preserve", "hybrid")

ImportMode = Literal["re-derive", "preserve", "hybrid"]
RecordKind = Literal["memory", "memory_block", "messages", "passage", "episode", "entity", "fact"]

#: Record kinds that are the source's own derived graph rather than raw content.
GRAPH_KINDS: frozenset[str] = frozenset({"entity", "fact"})

#: The largest export file read when the caller names no limit (``remember()`` passes its own
#: ``max_file_bytes`` setting).
DEFAULT_MAX_EXPORT_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ImportedRecord:
    """One unit of an export, already rendered as the text a document will hold."""

    kind: RecordKind
    #: The source's id for it (a memory id, a block id, an episode uuid...).
    external_id: str
    text: str
    #: What the source says about it: ids, scope, categories, timestamps (ISO 8601 strings).
    metadata: dict[str, Any] = field(default_factory=dict)
    #: For entities and facts: the source's graph, written as given in preserve/hybrid mode.
    graph: ChunkExtraction | None = None


class MemorySource(ABC):
    """An export of another memory system, to pass to ``remember()`` or ``add()``.

    ``mode`` is one of :data:`IMPORT_MODES`:

    * ``"re-derive"``: every record becomes a document whose graph engramdb's extractor builds,
      as for any text (costs LLM calls with an LLM extractor). A source's own entities and facts
      become documents too (one per entity and per fact sentence) and are extracted like the
      rest.
    * ``"preserve"``: nothing is extracted. Memories, blocks, messages, passages and episodes are
      kept verbatim as documents and chunks (searchable with CHUNKS, CHUNKS_LEXICAL, RAG and
      HYBRID; a later ``cognify()`` has nothing to build), and a source's entities and facts
      are written as given: each fact is a document holding its sentence ("Alice —works_with→
      Bob (valid from ...)") whose graph is exactly the source's two entities and the edge
      between them, with ``valid_at``/``invalid_at`` on the edge.
    * ``"hybrid"``: raw content is extracted as in re-derive, and the source's entities and
      facts are written as given, as in preserve.

    The export is read when ``remember()``/``add()`` loads its inputs, before anything is
    written: a malformed export raises EngramValidationError naming the file and the record.
    Importing the same export again skips what is already there, whatever the mode (forget the
    import first to import it in another mode).
    """

    #: The system the export comes from; names the node-set tag ``import:<system>``.
    source_system: ClassVar[str] = "unknown"
    #: How the source names its export in messages.
    export_name: ClassVar[str] = "export"

    def __init__(self, mode: str = "re-derive") -> None:
        if mode not in IMPORT_MODES:
            raise EngramValidationError(
                f"unknown import mode {mode!r}: choose one of {', '.join(IMPORT_MODES)}"
            )
        self.mode: str = mode
        self._data: object = None

    @property
    def node_set(self) -> list[str]:
        """The tag every imported document carries (cognee's default: ``import:<system>``)."""
        return [f"import:{self.source_system}"]

    def __repr__(self) -> str:
        data = self._data
        shown = repr(str(data)) if isinstance(data, str | Path) else type(data).__name__
        return f"{type(self).__name__}({shown}, mode={self.mode!r})"

    @abstractmethod
    def read(self, *, max_file_bytes: int = DEFAULT_MAX_EXPORT_BYTES) -> list[ImportedRecord]:
        """Parse the export into records (EngramValidationError if it is malformed)."""

    def documents(self, *, max_file_bytes: int = DEFAULT_MAX_EXPORT_BYTES) -> list[LoadedDocument]:
        """The documents this import writes, one per record, shaped by ``mode``."""
        records = self.read(max_file_bytes=max_file_bytes)
        where = self._where()
        if not records:
            raise EngramValidationError(
                f"{where} holds nothing to import (no memories, messages, passages, episodes, "
                "entities or facts); check that it is the right file"
            )
        docs: list[LoadedDocument] = []
        for record in records:
            metadata = {
                "external_system": self.source_system,
                "external_id": record.external_id,
                "import_kind": record.kind,
                "import_mode": self.mode,
                **record.metadata,
            }
            try:
                metadata = validate_external_metadata(metadata)
            except EngramValidationError as exc:
                raise EngramValidationError(
                    f"{where}: {record.kind} {record.external_id!r}: {exc}"
                ) from exc
            given = record.graph if self.mode != "re-derive" else None
            derive = self.mode == "re-derive" or (
                self.mode == "hybrid" and record.kind not in GRAPH_KINDS
            )
            raw = record.text.encode("utf-8")
            identity = f"{self.source_system}\x00{record.kind}\x00{record.external_id}\x00"
            docs.append(
                LoadedDocument(
                    name=f"{self.source_system}:{record.kind}:{record.external_id}",
                    text=record.text,
                    mime_type="text/plain",
                    content_hash=hashlib.sha256(identity.encode("utf-8") + raw).hexdigest(),
                    size_bytes=len(raw),
                    source_path=self._path_text(),
                    external_metadata=metadata,
                    node_set=tuple(self.node_set),
                    derive_graph=derive and given is None,
                    given_graph=given,
                )
            )
        return docs

    # --- helpers for the sources --------------------------------------------------------------

    def _path_text(self) -> str | None:
        data = self._data
        return str(user_path(data).absolute()) if isinstance(data, str | Path) else None

    def _where(self) -> str:
        """The export, as error messages name it."""
        path = self._path_text()
        if path is not None:
            return f"{self.export_name} '{path}'"
        return f"{self.export_name} passed to {type(self).__name__}(...)"

    def _fail(self, what: str, fix: str) -> EngramValidationError:
        return EngramValidationError(f"{self._where()}: {what}; {fix}")

    def _load(self, max_file_bytes: int) -> object:
        """The export as parsed JSON: read from the file ``data`` names, or ``data`` itself."""
        data = self._data
        if not isinstance(data, str | Path):
            if isinstance(data, dict | list):
                return data
            raise EngramValidationError(
                f"{type(self).__name__} takes a path to an export file or its already-loaded "
                f"JSON (a dict or a list), got {type(data).__name__}"
            )
        path = user_path(data)
        if not path.is_file():
            what = "is a directory" if path.is_dir() else "does not exist"
            raise self._fail(what, "pass the path of the exported JSON file")
        try:
            size = path.stat().st_size
            if size > max_file_bytes:
                raise self._fail(
                    f"is {size} bytes, more than the {max_file_bytes} bytes allowed",
                    "raise ENGRAMDB_MAX_FILE_BYTES or split the export",
                )
            raw = path.read_bytes()
        except OSError as exc:
            raise self._fail(f"cannot be read ({exc.strerror})", "check its permissions") from exc
        try:
            return json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise self._fail("is not UTF-8 text", "export it again as UTF-8 JSON") from exc
        except json.JSONDecodeError as exc:
            raise self._fail(
                f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
                "export it again, or fix the file",
            ) from exc

    def _objects(self, value: object, where: str) -> list[dict[str, Any]]:
        """``value`` as a list of JSON objects (an error naming ``where`` otherwise)."""
        if not isinstance(value, list):
            raise self._fail(f"{where} is a {_kind(value)}, not a list", "export it again")
        for index, item in enumerate(value):
            if not isinstance(item, dict):
                raise self._fail(
                    f"{where}[{index}] is a {_kind(item)}, not an object", "export it again"
                )
        return value

    def _collection(
        self, container: dict[str, Any], keys: tuple[str, ...], at: str = ""
    ) -> tuple[str, list[dict[str, Any]]]:
        """The records under the first of ``keys`` that holds any (exports name the same
        collection differently across versions, and an empty alias never hides a filled one),
        with the key that held them."""
        present = [k for k in keys if container.get(k) is not None]
        prefix = f"{at}." if at else ""
        for key in present:
            if container[key]:
                return key, self._objects(container[key], f"{prefix}{key}")
        return (present[0] if present else keys[0]), []

    def _text(self, item: dict[str, Any], keys: tuple[str, ...], where: str) -> str | None:
        """The first of ``keys`` that holds a string (None when none is present)."""
        for key in keys:
            value = item.get(key)
            if value is None:
                continue
            if not isinstance(value, str):
                raise self._fail(
                    f"{where}.{key} is a {_kind(value)}, not a string", "export it again"
                )
            return value
        return None

    def _timestamp(self, item: dict[str, Any], key: str, where: str) -> str | None:
        """``item[key]`` as an ISO 8601 UTC timestamp (None when absent or null)."""
        value = item.get(key)
        if value is None or value == "":
            return None
        parsed: datetime | None = None
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            seconds = value / 1000 if value > 1e11 else value  # milliseconds since the epoch
            parsed = datetime.fromtimestamp(seconds, tz=UTC)
        elif isinstance(value, str):
            try:
                parsed = datetime.fromisoformat(value.strip())
            except ValueError:
                parsed = None
        if parsed is None:
            raise self._fail(
                f"{where}.{key} is not a timestamp ({value!r})",
                "use ISO 8601 (e.g. '2025-01-10T14:30:00Z') or seconds since the epoch",
            )
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC).isoformat()


def _kind(value: object) -> str:
    """A JSON type name for messages."""
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number" if isinstance(value, int | float) else "value")


def drop_empty(metadata: dict[str, Any]) -> dict[str, Any]:
    """``metadata`` without the keys whose value is None, empty or blank."""
    return {k: v for k, v in metadata.items() if v not in (None, "", [], {})}
