"""Tables as documents: dlt resources and sources, and CSV files loaded by primary key.

cognee's ``remember()``/``add()`` take a dlt resource (``@dlt.resource``), a dlt source
(``@dlt.source``, called or not) or a CSV file path with the options ``primary_key`` and
``write_disposition``; so does engramdb's. Each top-level row becomes one document: its text
names the table, its columns and values, and the rows nested under it (dlt's child tables, e.g.
a user's ``pets``), so recall finds it like any text. Its graph is the row itself, not an LLM's
reading: an entity per row (named after its ``name``/``title``/``label`` column, else
``<table> <key>``; typed by its table) and an edge from a row to each nested row, named after
the field that holds it. No LLM call is made for rows; with an ontology, the rows are grounded
in it (:mod:`engramdb.ontology.grounding`).

The write disposition decides what a later load of the same source (same resource or CSV name,
same dataset) does to the rows already there, as dlt's do:

* ``"merge"``: upsert by primary key. A changed row replaces its document; rows the load does
  not hold stay.
* ``"replace"`` (cognee's default): the load is the source's whole table. Changed rows replace
  their documents and rows it no longer holds are forgotten.
* ``"append"``: every new row is added. A changed row is kept beside its earlier version.

An identical row is never stored twice, whatever the disposition. Rows of one load that share
a key are all kept, except under merge, where the last one wins (dlt's upsert). Without the
option, a resource declared ``write_disposition="merge"`` merges; anything else follows
cognee's default, replace. The primary key is ``primary_key`` when the table has that column,
else the resource's declared key, else an ``id`` column, else the first column (cognee's
order).

engramdb keeps no dlt pipeline state: a ``dlt.sources.incremental`` cursor starts from its
``initial_value`` on every call, so an incremental resource is read whole each time and the
disposition keeps its rows unique. Loading needs the ``dlt`` extra
(``pip install 'engramdb[dlt]'``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast, get_args
from uuid import UUID

from engramdb.errors import EngramValidationError, FeatureNotAvailableError
from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
from engramdb.ingest.types import LoadedDocument

if TYPE_CHECKING:
    from engramdb.storage.base import Store

__all__ = [
    "DEFAULT_DISPOSITION",
    "DLT_INSTALL",
    "ROW_GRAPH",
    "WRITE_DISPOSITIONS",
    "TableLoad",
    "TableOptions",
    "WriteDisposition",
    "csv_table_documents",
    "dlt_documents",
    "is_dlt_item",
    "require_dlt",
    "settle_tables",
]

WriteDisposition = Literal["merge", "append", "replace"]
#: dlt's write dispositions, as cognee accepts them.
WRITE_DISPOSITIONS: tuple[str, ...] = get_args(WriteDisposition)
#: What cognee loads a source with when the call names no disposition.
DEFAULT_DISPOSITION: WriteDisposition = "replace"
#: How to install what loading tables needs.
DLT_INSTALL = "pip install 'engramdb[dlt]'"

#: ``external_metadata`` keys every row document carries (which source, table and row it is).
SOURCE_KEY = "dlt_source"
TABLE_KEY = "dlt_table"
ROW_KEY = "dlt_primary_key"

#: ``ChunkExtraction.source`` of a row's graph.
ROW_GRAPH = "table_row"
#: Columns whose value names a row's entity, in order of preference.
_LABEL_COLUMNS = ("name", "title", "label", "full_name", "product")
#: dlt's own columns (``_dlt_id``, ``_dlt_load_id``...), never shown.
_DLT_COLUMN = re.compile(r"^_dlt_")
#: Values longer than this are cut in an entity's description (the row text keeps them whole).
_DESCRIPTION_CHARS = 300


def is_dlt_item(item: object) -> bool:
    """Whether ``item`` is a dlt object (a resource, a source or a source factory); dlt is
    never imported to tell."""
    module = type(item).__module__
    return module == "dlt" or module.startswith("dlt.")


def require_dlt(what: str) -> None:
    """FeatureNotAvailableError naming ``what`` when dlt is not installed."""
    try:
        import dlt  # noqa: F401
    except ImportError:
        raise FeatureNotAvailableError(
            f"{what} needs the dlt package, which is not installed: {DLT_INSTALL}"
        ) from None


@dataclass(frozen=True, slots=True)
class TableOptions:
    """cognee's options for structured inputs (``remember()``/``add()`` keywords)."""

    primary_key: str | None = None
    write_disposition: str | None = None
    max_rows_per_table: int | None = None

    @property
    def given(self) -> bool:
        """Whether the call named any of them (a CSV is then loaded as a table)."""
        return self.primary_key is not None or self.write_disposition is not None

    def disposition(self, declared: object = None) -> WriteDisposition:
        """The disposition to load with: the call's, else a declared ``merge``, else replace."""
        chosen = self.write_disposition
        if chosen is None:
            return "merge" if declared == "merge" else DEFAULT_DISPOSITION
        if chosen not in WRITE_DISPOSITIONS:
            raise EngramValidationError(
                f"write_disposition={chosen!r} is not one of {', '.join(WRITE_DISPOSITIONS)}"
            )
        return cast(WriteDisposition, chosen)


@dataclass(slots=True)
class TableLoad:
    """What one source's load holds: (table, key) -> the content hashes of its row documents
    (one under merge; several when rows share a key under replace and append)."""

    source: str
    disposition: WriteDisposition
    rows: dict[tuple[str, str], set[str]] = field(default_factory=dict)


@dataclass(slots=True)
class _Row:
    table: str
    key: str
    values: dict[str, Any]
    #: field name -> the rows nested under it (dlt's child table ``<table>__<field>``).
    children: dict[str, list[_Row]] = field(default_factory=dict)


# --- dlt ------------------------------------------------------------------------------------


def dlt_documents(
    item: object, where: str, options: TableOptions
) -> tuple[list[LoadedDocument], TableLoad]:
    """The row documents of a dlt resource, source or source factory, and its load."""
    require_dlt("loading a dlt resource")
    from dlt.extract import DltResource, DltSource

    source: Any = item
    if not isinstance(source, DltResource | DltSource) and callable(source):
        source = source()  # a @dlt.source function not called yet (cognee's SourceFactory)
    if isinstance(source, DltResource):
        resources = [source]
    elif isinstance(source, DltSource):
        resources = list(source.selected_resources.values())
    else:
        raise EngramValidationError(
            f"{where} is a {type(item).__name__} from dlt, not a resource or a source; pass a "
            "@dlt.resource or a @dlt.source"
        )
    name = str(source.name)
    declared = {_disposition_hint(r.write_disposition) for r in resources}
    load = TableLoad(name, options.disposition("merge" if declared == {"merge"} else None))
    docs: list[LoadedDocument] = []
    for resource in resources:
        rows = _read_resource(resource, where)
        pk = _declared_key(resource)
        docs += _documents(name, _table_name(resource), rows, pk, options, load)
    return docs, load


def _disposition_hint(hint: object) -> object:
    """A resource's declared disposition: a name, or dlt's ``{"disposition": ...}`` form."""
    return hint.get("disposition") if isinstance(hint, Mapping) else hint


def _read_resource(resource: Any, where: str) -> list[dict[str, Any]]:
    try:
        items = list(resource)
    except Exception as exc:
        raise EngramValidationError(
            f"{where}: reading dlt resource {resource.name!r} failed: {type(exc).__name__}: "
            f"{exc}; fix the resource and remember it again"
        ) from exc
    rows: list[dict[str, Any]] = []
    for value in items:
        if not isinstance(value, Mapping):
            raise EngramValidationError(
                f"{where}: dlt resource {resource.name!r} yielded a {type(value).__name__}, not "
                "a row (a dict); yield dicts or lists of dicts"
            )
        rows.append(dict(value))
    return rows


def _table_name(resource: Any) -> str:
    table = resource.table_name
    return str(table) if isinstance(table, str) and table else str(resource.name)


def _declared_key(resource: Any) -> list[str]:
    columns = resource.compute_table_schema().get("columns") or {}
    return [
        str(c)
        for c, hints in columns.items()
        if isinstance(hints, dict) and hints.get("primary_key")
    ]


# --- CSV ------------------------------------------------------------------------------------


def csv_table_documents(
    doc: LoadedDocument, options: TableOptions
) -> tuple[list[LoadedDocument], TableLoad]:
    """The rows of the loaded CSV file ``doc`` as documents (source and table: the file's
    stem), and its load."""
    require_dlt("loading a CSV file by primary_key/write_disposition")
    delimiter = str(doc.metadata.get("csv_delimiter") or ",")
    reader = csv.DictReader(io.StringIO(doc.text, newline=""), delimiter=delimiter)
    rows = [
        {str(k): v for k, v in row.items() if k is not None}
        for row in reader
        if any((v or "").strip() for v in row.values() if isinstance(v, str))
    ]
    name = Path(doc.source_path or doc.name).stem
    load = TableLoad(name, options.disposition())
    return _documents(name, name, rows, [], options, load, source_path=doc.source_path), load


# --- rows to documents ----------------------------------------------------------------------


def _documents(
    source: str,
    table: str,
    rows: list[dict[str, Any]],
    declared_key: list[str],
    options: TableOptions,
    load: TableLoad,
    *,
    source_path: str | None = None,
) -> list[LoadedDocument]:
    limit = options.max_rows_per_table
    if limit is not None and limit > 0:
        rows = rows[:limit]
    docs: dict[tuple[str, str, str], LoadedDocument] = {}
    for values in rows:
        row = _row(table, values, options.primary_key, declared_key)
        text = _row_text(row)
        raw = text.encode("utf-8")
        identity = f"dlt\x00{source}\x00{row.table}\x00{row.key}\x00".encode()
        digest = hashlib.sha256(identity + raw).hexdigest()
        fresh = load.rows.setdefault((row.table, row.key), set())
        if load.disposition == "merge":  # an upsert by key: the load's last row of a key wins
            for earlier in fresh:
                docs.pop((row.table, row.key, earlier), None)
            fresh.clear()
        fresh.add(digest)
        docs[(row.table, row.key, digest)] = LoadedDocument(
            name=f"dlt:{source}:{row.table}:{row.key}",
            text=text,
            mime_type="text/plain",
            content_hash=digest,
            size_bytes=len(raw),
            source_path=source_path,
            external_metadata={SOURCE_KEY: source, TABLE_KEY: row.table, ROW_KEY: row.key},
            derive_graph=False,
            given_graph=_row_graph(row),
        )
    return list(docs.values())


def _row(
    table: str, values: Mapping[str, Any], primary_key: str | None, declared: Sequence[str]
) -> _Row:
    """A row split into its scalar columns (nested dicts flattened as ``a__b``, as dlt does)
    and the rows nested under it."""
    scalars: dict[str, Any] = {}
    children: dict[str, list[_Row]] = {}
    _flatten(values, "", scalars, children, table)
    key_columns = _key_columns(list(scalars), primary_key, declared)
    key = ",".join(_shown(scalars.get(c)) for c in key_columns)
    return _Row(table, key, scalars, children)


def _flatten(
    values: Mapping[str, Any],
    prefix: str,
    scalars: dict[str, Any],
    children: dict[str, list[_Row]],
    table: str,
) -> None:
    for name, value in values.items():
        column = f"{prefix}{name}"
        if _DLT_COLUMN.match(str(name)):
            continue
        if isinstance(value, Mapping):
            _flatten(value, f"{column}__", scalars, children, table)
        elif isinstance(value, list | tuple) and any(isinstance(v, Mapping) for v in value):
            child_table = f"{table}__{column}"
            children[column] = [
                _row(child_table, v if isinstance(v, Mapping) else {"value": v}, None, [])
                for v in value
            ]
        else:
            scalars[column] = value


def _key_columns(columns: list[str], primary_key: str | None, declared: Sequence[str]) -> list[str]:
    if primary_key and primary_key in columns:
        return [primary_key]
    if declared and all(c in columns for c in declared):
        return list(declared)
    if "id" in columns:
        return ["id"]
    return columns[:1]


def _shown(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple | dict):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def _row_text(row: _Row) -> str:
    """What a row document says: its table, its columns and the rows nested under it."""
    lines = [f"Table: {row.table}"]
    lines += [f"  {c}: {_shown(v)}" for c, v in row.values.items()]
    _nested_lines(row, "  ", lines)
    return "\n".join(lines)


def _nested_lines(row: _Row, indent: str, lines: list[str]) -> None:
    for name, nested in row.children.items():
        lines.append(f"{indent}{name} ({len(nested)}):")
        for child in nested:
            lines.append(f"{indent}  - {_inline(child)}")
            _nested_lines(child, indent + "    ", lines)


def _inline(row: _Row) -> str:
    return ", ".join(f"{c}: {_shown(v)}" for c, v in row.values.items())


def _label(row: _Row) -> str:
    for column in _LABEL_COLUMNS:
        value = row.values.get(column)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return f"{row.table} {row.key}".strip()


def _description(row: _Row) -> str:
    text = f"{row.table} row: {_inline(row)}"
    return text if len(text) <= _DESCRIPTION_CHARS else text[: _DESCRIPTION_CHARS - 3] + "..."


def _row_graph(row: _Row) -> ChunkExtraction:
    entities: list[ExtractedEntity] = []
    relations: list[ExtractedRelation] = []
    _add_row(row, entities, relations)
    return ChunkExtraction(entities=entities, relations=relations, source=ROW_GRAPH)


def _add_row(row: _Row, entities: list[ExtractedEntity], relations: list[ExtractedRelation]) -> str:
    name = _label(row)
    entities.append(ExtractedEntity(name, _entity_type(row.table), _description(row)))
    for field_name, nested in row.children.items():
        for child in nested:
            target = _add_row(child, entities, relations)
            relations.append(ExtractedRelation(name, field_name, target))
    return name


def _entity_type(table: str) -> str:
    return re.sub(r"\W+", "_", table).strip("_").upper() or "ROW"


# --- after a load ---------------------------------------------------------------------------


def _superseded(meta: object, content_hash: str, loads: Mapping[str, TableLoad]) -> bool:
    """Whether a stored (or staged) document with ``meta`` is one of the rows ``loads``
    replace: a changed row (merge, replace) or a row the load no longer holds (replace)."""
    if not isinstance(meta, Mapping):
        return False
    load = loads.get(meta.get(SOURCE_KEY))  # type: ignore[arg-type]
    if load is None or load.disposition == "append":
        return False
    fresh = load.rows.get((str(meta.get(TABLE_KEY)), str(meta.get(ROW_KEY))))
    if fresh is None:
        return load.disposition == "replace"
    return content_hash not in fresh


def _staged_metadata(options: Mapping[str, Any]) -> object:
    """The document's own ``external_metadata`` a staged item keeps (``document_extras``)."""
    extras = options.get("document")
    return extras.get("external_metadata") if isinstance(extras, Mapping) else None


async def settle_tables(store: Store, dataset_id: UUID, loads: Sequence[TableLoad]) -> list[UUID]:
    """Forget the row documents of ``dataset_id`` that the call's ``loads`` supersede, once
    the load's own rows are stored (never before: a failed load loses nothing), and unstage
    the superseded rows an ``add()`` left for ``cognify()``. The caller holds the dataset's
    lock. Returns the forgotten data ids."""
    if not loads:
        return []
    from engramdb.ingest.queue import dequeue

    by_source = {load.source: load for load in loads}
    stale = [
        record.id
        for record in await store.list_data(dataset_id)
        if _superseded(record.external_metadata, record.content_hash, by_source)
    ]
    for data_id in stale:
        await store.delete_data(data_id)
    if stale:
        await dequeue(store, dataset_id, stale)
    staged = [
        item.content_hash
        for item in await store.list_staged(dataset_id)
        if _superseded(_staged_metadata(item.options), item.content_hash, by_source)
    ]
    if staged:
        await store.unstage(dataset_id, staged)
    return stale
