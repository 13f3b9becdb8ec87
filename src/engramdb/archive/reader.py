"""Read and check an archive before anything is written (see :mod:`engramdb.archive.format`).

Every problem is an :class:`~engramdb.errors.EngramValidationError` naming the file (and line)
and what to do: a missing or unreadable manifest, another format, an unsupported version, a
file missing, changed (checksum) or not listed, a line that is not a valid record, a record of a
dataset the archive does not hold.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

from pydantic import BaseModel, ValidationError

from engramdb.archive import format as fmt
from engramdb.errors import EngramValidationError

__all__ = ["Archive", "read_archive"]


@dataclass(frozen=True)
class Archive:
    """A checked archive: its manifest and every record, by file name."""

    manifest: fmt.Manifest
    records: dict[str, list[Any]]

    def of(self, name: str) -> list[Any]:
        return self.records.get(name, [])

    def part(self, dataset_id: UUID) -> Archive:
        """The records of one dataset (those of no dataset, users and sessions, left out)."""
        return Archive(
            manifest=self.manifest,
            records={
                name: [r for r in items if getattr(r, "dataset_id", None) == dataset_id]
                for name, items in self.records.items()
            },
        )


def _bad(source: Path, problem: str) -> EngramValidationError:
    return EngramValidationError(
        f"{source} is not a usable engramdb archive: {problem}; nothing was imported "
        "(export it again with 'engramdb export', or restore the archive from a copy)"
    )


def _files(source: Path) -> dict[str, bytes]:
    if source.is_dir():
        return {p.name: p.read_bytes() for p in sorted(source.iterdir()) if p.is_file()}
    if source.is_file():
        try:
            with zipfile.ZipFile(source) as archive:
                return {name: archive.read(name) for name in archive.namelist()}
        except (zipfile.BadZipFile, OSError) as exc:
            raise _bad(source, f"it is neither a directory nor a readable .zip ({exc})") from exc
    raise EngramValidationError(f"{source} does not exist; give the path 'engramdb export' wrote")


def read_archive(source: str | Path) -> Archive:
    """Parse and check the whole archive at ``source`` (a directory or a ``.zip``)."""
    path = Path(source)
    files = _files(path)
    raw = files.pop(fmt.MANIFEST, None)
    if raw is None:
        raise _bad(path, f"it has no {fmt.MANIFEST}")
    try:
        head = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"{fmt.MANIFEST} is not JSON ({exc})") from exc
    if not isinstance(head, dict) or head.get("format") != fmt.FORMAT:
        raise _bad(path, f"{fmt.MANIFEST} does not describe an {fmt.FORMAT!r}")
    version = head.get("format_version")
    if version not in fmt.SUPPORTED_VERSIONS:
        raise EngramValidationError(
            f"{path} is an engramdb archive of format version {version!r}, and this engramdb "
            f"reads version(s) {sorted(fmt.SUPPORTED_VERSIONS)}; import it with the engramdb "
            f"version that wrote it ({head.get('engramdb_version')!r}) or a newer one; nothing "
            "was imported"
        )
    try:
        manifest = fmt.Manifest.model_validate(head)
    except ValidationError as exc:
        raise _bad(path, f"{fmt.MANIFEST} is invalid ({_first(exc)})") from exc
    required = {n for n in fmt.KINDS if n != fmt.VECTORS or manifest.with_vectors}
    if set(manifest.files) != required:
        raise _bad(
            path, f"{fmt.MANIFEST} lists {sorted(manifest.files)}, expected {sorted(required)}"
        )
    extra = sorted(set(files) - required)
    if extra:
        raise _bad(path, f"it holds files the manifest does not list: {extra}")
    records: dict[str, list[Any]] = {}
    for name in sorted(required):
        data = files.get(name)
        if data is None:
            raise _bad(path, f"{name} is missing")
        listed = manifest.files[name]
        if fmt.sha256(data) != listed.sha256:
            raise _bad(
                path, f"{name} was changed or damaged (its SHA-256 differs from the manifest's)"
            )
        records[name] = _parse(path, name, data, fmt.KINDS[name])
        if len(records[name]) != listed.records:
            raise _bad(
                path,
                f"{name} holds {len(records[name])} records, the manifest says {listed.records}",
            )
    _check_references(path, manifest, records)
    return Archive(manifest=manifest, records=records)


def _parse(path: Path, name: str, data: bytes, model: type[BaseModel]) -> list[Any]:
    found: list[Any] = []
    for number, line in enumerate(data.decode("utf-8", errors="strict").splitlines(), 1):
        try:
            found.append(model.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            detail = _first(exc) if isinstance(exc, ValidationError) else str(exc)
            raise _bad(path, f"{name} line {number} is not a valid record ({detail})") from exc
    return found


def _first(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in error.get("loc", ())) or "record"
    return f"{where}: {error.get('msg', 'invalid')}"


def _check_references(path: Path, manifest: fmt.Manifest, records: dict[str, list[Any]]) -> None:
    ids = {d.id for d in records["datasets.jsonl"]}
    if ids != {d.id for d in manifest.datasets}:
        raise _bad(path, "datasets.jsonl and the manifest name different datasets")
    for name, items in records.items():
        for item in items:
            dataset_id = getattr(item, "dataset_id", None)
            if dataset_id is not None and dataset_id not in ids:
                raise _bad(
                    path, f"{name} holds a record of dataset {dataset_id}, not in the archive"
                )
    emails = {u.email for u in records["users.jsonl"]}
    for name, field in (
        ("datasets.jsonl", "owner"),
        ("grants.jsonl", "grantee"),
        ("session_qa.jsonl", "user"),
        ("session_traces.jsonl", "user"),
        ("session_guidance.jsonl", "user"),
    ):
        for item in records[name]:
            if getattr(item, field) not in emails:
                raise _bad(path, f"{name} names user {getattr(item, field)!r}, not in users.jsonl")
