"""The archive format, version 1: one canonical JSON Lines file per record kind, and a manifest.

Every fact of the format is declared here: the file of each kind, the record model of its lines,
how a line is written (canonical JSON: keys sorted, no spaces, UTF-8) and the sort order. The
page ``docs/export-import.md`` describes it for people.

An archive is a directory (or a ``.zip`` of the same files). Equal stores give byte-identical
archives: nothing in it depends on the export's time, the store's backend or its row order.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_serializer

from engramdb.models.records import DataRecord, Edge, Node
from engramdb.models.sessions import ContextProfile, FeedbackSource

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "KINDS",
    "SUPPORTED_VERSIONS",
    "ArchiveDataset",
    "ArchiveDerived",
    "ArchiveGrant",
    "ArchiveGuidance",
    "ArchiveIndex",
    "ArchiveMark",
    "ArchiveQA",
    "ArchiveStaged",
    "ArchiveState",
    "ArchiveTrace",
    "ArchiveUser",
    "ArchiveVector",
    "Manifest",
    "canonical",
    "decode_vector",
    "encode_lines",
    "encode_vector",
]

#: The ``format`` field of every manifest.
FORMAT = "engramdb-archive"
#: The version this code writes.
FORMAT_VERSION = 1
#: The versions this code reads.
SUPPORTED_VERSIONS = frozenset({1})
MANIFEST = "manifest.json"


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ArchiveUser(_Line):
    """A user the archive names (a dataset owner, a grantee, a session's user). Users are
    matched by e-mail on import; ids are the store's own and never travel."""

    email: str
    is_default: bool = False
    is_admin: bool = False


class ArchiveDataset(_Line):
    """A dataset: its id (which entity and chunk ids are derived from, so it is kept), name,
    owner's e-mail, the embedding model its vectors were made with, creation time."""

    id: UUID
    name: str
    owner: str
    embedding_model: str | None = None
    embedding_dim: int | None = None
    created_at: datetime


class ArchiveStaged(_Line):
    """An input added (cognee's ``add``) and not built into the graph yet."""

    dataset_id: UUID
    content_hash: str
    name: str
    text: str
    mime_type: str
    size_bytes: int
    source_path: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)


class ArchiveDerived(_Line):
    """A node or edge improve derived (conflicts, preferences, the global index, truth
    statements), and the owner that manages it."""

    dataset_id: UUID
    kind: Literal["node", "edge"]
    id: UUID
    owner: str


class ArchiveState(_Line):
    """One improve-state value of a dataset (watermarks, fingerprints)."""

    dataset_id: UUID
    key: str
    value: str


class ArchiveIndex(_Line):
    """A node's entry in a search index: ``vector`` (an embedding) or ``lexical`` (a
    full-text row) of ``collection``. Imports rebuild both from the node (see the docs)."""

    dataset_id: UUID
    index: Literal["vector", "lexical"]
    node_id: UUID
    collection: str


class ArchiveVector(_Line):
    """An embedding (only with ``with_vectors``): little-endian float32, base64."""

    dataset_id: UUID
    node_id: UUID
    collection: str
    dim: int
    vector: str


class ArchiveGrant(_Line):
    """A dataset permission given to a user (by e-mail)."""

    dataset_id: UUID
    grantee: str
    permission: Literal["read", "write", "delete", "share"]
    granted_by: str
    created_at: datetime


class ArchiveQA(_Line):
    """A question and answer of a session, with its rating (feedback)."""

    id: UUID
    user: str
    session_id: str
    origin: Literal["recall", "remember"] = "recall"
    question: str = ""
    context: str = ""
    answer: str = ""
    search_type: str | None = None
    dataset_ids: list[UUID] = Field(default_factory=list)
    used_node_ids: list[UUID] = Field(default_factory=list)
    used_edge_ids: list[UUID] = Field(default_factory=list)
    used_context_ids: list[UUID] = Field(default_factory=list)
    feedback_score: int | None = None
    feedback_text: str | None = None
    feedback_source: FeedbackSource | None = None
    feedback_at: datetime | None = None
    rating_rev: int = 0
    created_at: datetime


class ArchiveTrace(_Line):
    """One step of an agent trace in a session."""

    id: UUID
    user: str
    session_id: str
    origin_function: str
    status: Literal["success", "error"] = "success"
    memory_query: str = ""
    memory_context: str = ""
    method_params: dict[str, Any] = Field(default_factory=dict)
    method_return_value: Any = None
    error_message: str = ""
    session_feedback: str = ""
    created_at: datetime


class ArchiveGuidance(_Line):
    """A guidance entry of a session (goals, rules, preferences, lessons learned)."""

    id: UUID
    user: str
    session_id: str
    context_profile: ContextProfile = "qa"
    section: str
    content: str
    confidence: float = 1.0
    source_ids: list[str] = Field(default_factory=list)
    created_at: datetime


class ArchiveMark(_Line):
    """An improve stage (``consumer``) already processed this session entry: kept so that a
    rating is not spent twice after an import."""

    kind: Literal["qa", "trace", "context"]
    entry_id: UUID
    consumer: str
    rating_rev: int = 0


class _Data(DataRecord):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Node(Node):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_serializer("data_ids")
    def _sorted_ids(self, ids: list[UUID]) -> list[str]:
        return sorted(str(i) for i in ids)


class _Edge(Edge):
    model_config = ConfigDict(frozen=True, extra="forbid")

    @field_serializer("data_ids")
    def _sorted_ids(self, ids: list[UUID]) -> list[str]:
        return sorted(str(i) for i in ids)


#: Every record kind: file name -> line model, in the order an import applies them.
KINDS: Mapping[str, type[BaseModel]] = {
    "users.jsonl": ArchiveUser,
    "datasets.jsonl": ArchiveDataset,
    "data.jsonl": _Data,
    "nodes.jsonl": _Node,
    "edges.jsonl": _Edge,
    "index.jsonl": ArchiveIndex,
    "vectors.jsonl": ArchiveVector,
    "derived.jsonl": ArchiveDerived,
    "improve_state.jsonl": ArchiveState,
    "staged.jsonl": ArchiveStaged,
    "grants.jsonl": ArchiveGrant,
    "session_qa.jsonl": ArchiveQA,
    "session_traces.jsonl": ArchiveTrace,
    "session_guidance.jsonl": ArchiveGuidance,
    "session_marks.jsonl": ArchiveMark,
}
#: The one optional kind (``with_vectors``).
VECTORS = "vectors.jsonl"


class ManifestDataset(_Line):
    id: UUID
    name: str
    owner: str


class ManifestFile(_Line):
    records: int
    sha256: str


class Manifest(_Line):
    """``manifest.json``: what the archive is and holds. It carries no time of its own (two
    exports of equal stores are byte-identical); ``files`` lists every record file with its
    line count and SHA-256, which an import checks before it writes anything."""

    format: Literal["engramdb-archive"] = "engramdb-archive"
    format_version: int
    engramdb_version: str
    with_vectors: bool
    datasets: list[ManifestDataset]
    files: dict[str, ManifestFile]


def canonical(value: Any) -> str:
    """One canonical JSON text: keys sorted, no spaces, non-ASCII kept, no NaN."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def encode_lines(records: Iterable[BaseModel], order: Sequence[str] = ()) -> bytes:
    """The JSON Lines bytes of ``records`` (each line canonical, ``\\n``-terminated), sorted by
    the JSON values of the ``order`` fields (compared as text)."""
    dumped = [r.model_dump(mode="json") for r in records]
    if order:
        dumped.sort(key=lambda d: tuple("" if d.get(f) is None else str(d[f]) for f in order))
    return b"".join((canonical(d) + "\n").encode("utf-8") for d in dumped)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def encode_vector(vector: np.ndarray[Any, Any]) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str, dim: int) -> np.ndarray[Any, np.dtype[np.float32]]:
    array = np.frombuffer(base64.b64decode(text, validate=True), dtype="<f4").astype(np.float32)
    if array.shape != (dim,):
        raise ValueError(f"vector of {array.shape[0]} values, dim says {dim}")
    return array
