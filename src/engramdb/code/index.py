"""Write a repository's code graph into the store, incrementally.

Each source file is one data item of the dataset (so forget, permissions and datasets apply as
for any document), written with :meth:`~engramdb.storage.base.Store.write_document`: its nodes
(file, module, classes, functions, methods, with qualified name, kind, file path and line span)
and its structural edges. The item's content hash covers the repository name, the path and the
bytes, so an unchanged file is recognised without being parsed. A changed file is written as a
new item first and its old item deleted after: node ids are stable per (repository, path,
qualified name), so symbols that survive keep their ids and only what changed is written or
removed. The stored ``code_symbols`` manifest of each item (name → fingerprint of its facts)
makes the delta exact without reading the old nodes.

What the last indexing of each repository changed is kept as dataset state (the ``delta``
operation reads it; it goes with the dataset).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

from engramdb.code.discover import CodeRoot
from engramdb.code.model import DELTA_KEY, REPOS_KEY, VERSION_KEY, ParsedFile, Symbol
from engramdb.code.parse_python import parse_python
from engramdb.code.parse_treesitter import parse_treesitter
from engramdb.errors import EngramValidationError
from engramdb.ingest.pipeline import data_id_for
from engramdb.models.records import DataRecord, Dataset, Edge, Node, RunStatus, stable_id, utcnow
from engramdb.models.results import SkippedFile
from engramdb.storage.base import DocumentWrite, Store
from engramdb.storage.lending import dataset_lock

__all__ = [
    "CodeIndexReport",
    "build_document",
    "check_named_files",
    "content_hash",
    "index_code",
    "parse_file",
]

_MIME = {
    "python": "text/x-python",
    "javascript": "text/javascript",
    "typescript": "text/typescript",
}
_SAMPLE_LIMIT = 20


@dataclass(slots=True)
class CodeIndexReport:
    """What one indexing of one repository did (the shape of the ``delta`` operation's record)."""

    repo: str
    files_parsed: list[str] = field(default_factory=list)
    files_unchanged: int = 0
    files_removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    nodes_written: int = 0
    edges_written: int = 0
    data_ids: list[tuple[UUID, str, str]] = field(default_factory=list)
    #: Files of a directory that did not parse (their stored version, if any, is kept).
    skipped: list[SkippedFile] = field(default_factory=list)
    seconds: float = 0.0

    def delta(self, snapshot_id: str) -> dict[str, Any]:
        """cognee's ``last_delta`` keys, plus the files and full symbol lists."""
        return {
            "nodes_added": len(self.added),
            "nodes_updated": len(self.updated),
            "nodes_unchanged": self.unchanged,
            "nodes_removed": len(self.removed),
            "samples_added": sorted(self.added)[:_SAMPLE_LIMIT],
            "samples_updated": sorted(self.updated)[:_SAMPLE_LIMIT],
            "samples_removed": sorted(self.removed)[:_SAMPLE_LIMIT],
            "symbols_added": sorted(self.added),
            "symbols_updated": sorted(self.updated),
            "symbols_removed": sorted(self.removed),
            "files_parsed": list(self.files_parsed),
            "files_removed": list(self.files_removed),
            "files_unchanged": self.files_unchanged,
            "snapshot_id": snapshot_id,
            "loaded_at": utcnow().isoformat(),
        }


def check_named_files(roots: Sequence[CodeRoot]) -> None:
    """Parse the files named directly (not found in a directory) once up front, so one that
    does not parse fails ``remember()`` before anything, even its dataset, is created."""
    for root in roots:
        if not root.complete:
            for relative, absolute in root.files:
                parse_file(relative, _read(absolute))


def parse_file(path: str, raw: bytes) -> ParsedFile:
    """One file's facts, by suffix (EngramValidationError for Python that does not parse or
    is not UTF-8)."""
    if path.endswith(".py"):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise EngramValidationError(
                f"'{path}' is not UTF-8 text; re-encode it as UTF-8 or move it out"
            ) from exc
        return parse_python(path, text)
    return parse_treesitter(path, raw)


def content_hash(repo: str, path: str, raw: bytes) -> str:
    """Hash of what a code item is: the same bytes at another path are another item."""
    digest = hashlib.sha256()
    for part in (b"engramdb-code", repo.encode(), path.encode()):
        digest.update(part + b"\0")
    digest.update(raw)
    return digest.hexdigest()


def _fingerprint(sym: Symbol) -> str:
    refs = sorted((r.relation, r.target) for r in sym.refs)
    body = json.dumps(
        [sym.node_type, sym.symbol_kind, sym.line, sym.end_line, sym.description, refs]
    )
    return hashlib.sha1(body.encode()).hexdigest()[:16]


def _unique(symbols: list[Symbol]) -> list[Symbol]:
    """One symbol per (type, name): a redefinition adds its references to the first one."""
    kept: dict[tuple[str, str], Symbol] = {}
    for sym in symbols:
        first = kept.get((sym.node_type, sym.name))
        if first is None:
            kept[(sym.node_type, sym.name)] = sym
        else:
            first.refs.extend(sym.refs)
            first.end_line = max(first.end_line, sym.end_line)
    return list(kept.values())


def build_document(
    dataset: Dataset,
    repo: str,
    parsed: ParsedFile,
    raw: bytes,
    *,
    weight: float,
    metadata: dict[str, Any],
    node_set: list[str],
) -> tuple[DocumentWrite, dict[str, str]]:
    """The document of one parsed file, and its symbol manifest (name → fingerprint)."""
    chash = content_hash(repo, parsed.path, raw)
    symbols = _unique(parsed.symbols)
    ids: dict[str, UUID] = {}
    nodes: list[Node] = []
    manifest: dict[str, str] = {}
    for sym in symbols:
        node_id = stable_id("code", dataset.id, repo, parsed.path, sym.node_type, sym.name)
        ids[sym.name] = node_id
        manifest[sym.name] = _fingerprint(sym)
        props: dict[str, Any] = {
            "file": parsed.path,
            "line": sym.line,
            "end_line": sym.end_line,
            "repo": repo,
            "language": parsed.language,
            "module": parsed.module,
            "refs": [[r.relation, r.target, r.line] for r in sym.refs],
        }
        if sym.symbol_kind:
            props["symbol_kind"] = sym.symbol_kind
        if sym.description:
            props["description"] = sym.description
        if sym.node_type == "CodeModule" and parsed.aliases:
            props["aliases"] = dict(sorted(parsed.aliases.items()))
        nodes.append(
            Node(
                id=node_id,
                dataset_id=dataset.id,
                type=sym.node_type,
                name=sym.name,
                text=sym.description or sym.name,
                properties=props,
                importance_weight=weight,
            )
        )
    edges = [
        Edge(
            id=stable_id("code-edge", ids[src], relation, ids[dst]),
            dataset_id=dataset.id,
            source_id=ids[src],
            target_id=ids[dst],
            relation=relation,
            importance_weight=weight,
        )
        for relation, src, dst in dict.fromkeys(parsed.edges)
        if src in ids and dst in ids
    ]
    record = DataRecord(
        id=data_id_for(dataset.id, chash),
        dataset_id=dataset.id,
        name=f"{repo}/{parsed.path}",
        content_hash=chash,
        mime_type=_MIME.get(parsed.language, "text/plain"),
        importance_weight=weight,
        external_metadata={
            **metadata,
            "code_repo": repo,
            "code_path": parsed.path,
            "code_language": parsed.language,
            "code_symbols": manifest,
        },
        node_set=node_set,
        size_bytes=len(raw),
        created_at=utcnow(),
    )
    return DocumentWrite(data=record, nodes=nodes, edges=edges), manifest


async def index_code(
    store: Store,
    dataset: Dataset,
    root: CodeRoot,
    *,
    weight: float = 0.5,
    metadata: dict[str, Any] | None = None,
    node_set: list[str] | None = None,
    lock_timeout: float | None = None,
    parse: Callable[[str, bytes], ParsedFile] = parse_file,
) -> CodeIndexReport:
    """Index ``root`` into ``dataset``: parse only new and changed files, remove the files a
    complete root no longer has, record the delta. Every file is read and parsed before
    anything is written. In a directory, a file that does not parse is reported in
    ``skipped`` (its previously stored version stays); a file named directly that does not
    parse raises EngramValidationError and nothing is written."""
    started = time.perf_counter()
    repo = root.repo
    report = CodeIndexReport(repo=repo)
    async with store.lock(dataset_lock(dataset.id), timeout=lock_timeout):
        stored: dict[str, DataRecord] = {}
        for rec in await store.list_data(dataset.id):
            meta = rec.external_metadata
            if meta.get("code_repo") == repo and isinstance(meta.get("code_path"), str):
                stored[meta["code_path"]] = rec
        pending: list[tuple[str, bytes, ParsedFile, DataRecord | None]] = []
        seen: set[str] = set()
        for relative, absolute in root.files:
            seen.add(relative)
            raw = _read(absolute)
            old = stored.get(relative)
            if old is not None and old.content_hash == content_hash(repo, relative, raw):
                report.files_unchanged += 1
                report.unchanged += len(old.external_metadata.get("code_symbols") or {})
                report.data_ids.append((old.id, old.name, "skipped"))
                continue
            try:
                parsed = parse(relative, raw)
            except EngramValidationError as exc:
                if not root.complete:  # a file named directly must parse
                    raise
                report.skipped.append(SkippedFile(path=str(absolute), reason=str(exc)))
                continue
            pending.append((relative, raw, parsed, old))
        gone = [p for p in stored if p not in seen] if root.complete else []
        run = await store.start_run(dataset.id, "remember_code")
        try:
            for relative, raw, parsed, old in pending:
                doc, manifest = build_document(
                    dataset,
                    repo,
                    parsed,
                    raw,
                    weight=weight,
                    metadata=metadata or {},
                    node_set=node_set or [],
                )
                await store.write_document(doc)
                before: dict[str, str] = {}
                if old is not None:
                    before = dict(old.external_metadata.get("code_symbols") or {})
                    await store.delete_data(old.id)
                _diff(report, before, manifest)
                report.files_parsed.append(relative)
                report.nodes_written += len(doc.nodes)
                report.edges_written += len(doc.edges)
                report.data_ids.append((doc.data.id, doc.data.name, "ingested"))
            for relative in gone:
                old = stored[relative]
                report.removed.extend(old.external_metadata.get("code_symbols") or {})
                report.files_removed.append(relative)
                await store.delete_data(old.id)
            await _record(store, dataset.id, report)
        except BaseException as exc:
            await store.fail_run(run.id, exc)
            raise
        await store.finish_run(
            run.id,
            RunStatus.COMPLETED,
            counts={
                "documents": len(report.files_parsed),
                "skipped": report.files_unchanged,
                "nodes": report.nodes_written,
                "edges": report.edges_written,
            },
        )
    report.seconds = time.perf_counter() - started
    return report


def _diff(report: CodeIndexReport, before: dict[str, str], after: dict[str, str]) -> None:
    for name, print_ in after.items():
        if name not in before:
            report.added.append(name)
        elif before[name] != print_:
            report.updated.append(name)
        else:
            report.unchanged += 1
    report.removed.extend(name for name in before if name not in after)


async def _record(store: Store, dataset_id: UUID, report: CodeIndexReport) -> None:
    snapshot_id = uuid4().hex
    raw_repos = await store.get_improve_state(dataset_id, REPOS_KEY)
    repos = set(json.loads(raw_repos)) if raw_repos else set()
    repos.add(report.repo)
    await store.set_improve_state(dataset_id, REPOS_KEY, json.dumps(sorted(repos)))
    await store.set_improve_state(
        dataset_id, DELTA_KEY + report.repo, json.dumps(report.delta(snapshot_id))
    )
    await store.set_improve_state(dataset_id, VERSION_KEY, snapshot_id)


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise EngramValidationError(
            f"cannot read '{path}': {exc.strerror}; make it readable or move it out"
        ) from exc
