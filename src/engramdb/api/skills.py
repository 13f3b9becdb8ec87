"""Skills: named procedures an agent can discover by description and load by id.

``remember_skill(name, description, procedure)`` is engramdb's equivalent of the reference's
``remember(..., content_type="skills")``. What is stored where, and why:

* a ``Skill`` graph node -- ``name``, ``text = "name: description"``, ``properties =
  {description, tags, procedure_hash}`` -- with one vector in the ``"skills"`` collection
  (the embedding of ``"name: description"``). This is all that retrieval ever reads, so the
  SKILLS search and the skill gate can only show metadata.
* the procedure body in the item's *data record* (``external_metadata["skill"]``), outside the
  graph and every vector / full-text collection. Not even a CYPHER query can reach it; only
  :func:`load_skill` (and ``GET /api/v1/skills/{id}``) returns it, after an owner check.

Everything is written by ``store.write_document`` in one transaction; the content hash covers
name, description and procedure, and the node's provenance is the data record, so
``forget(data_id=...)`` removes the skill with its vector. A skill's id is stable per
(dataset, name): remembering a new version of a skill replaces the previous version.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from uuid import UUID

import numpy as np

from engramdb.access.permissions import check, dataset_for_write
from engramdb.artifacts.skills import (
    SKILL_COLLECTION,
    SKILL_NODE_TYPE,
    find_skill,
    skill_of,
)
from engramdb.engine import Engine
from engramdb.errors import (
    EngramValidationError,
    PermissionDeniedError,
)
from engramdb.ingest.graph_builder import normalise_name
from engramdb.ingest.pipeline import data_id_for
from engramdb.models.records import DataRecord, Dataset, Node, RunStatus, stable_id, utcnow
from engramdb.models.requests.graph import (
    LoadSkillRequest,
    RememberSkillRequest,
    RememberSkillsRequest,
)
from engramdb.models.skills import Skill, SkillRecord
from engramdb.paths import user_path
from engramdb.storage.base import DocumentWrite, VectorRow
from engramdb.storage.lending import dataset_lock
from engramdb.validation import validate_dataset_name, validate_node_set, validate_uuid

__all__ = [
    "SKILL_COLLECTION",
    "SKILL_MIME_TYPE",
    "SKILL_NODE_TYPE",
    "Skill",
    "SkillRecord",
    "find_skill",
    "load_skill",
    "parse_skill_markdown",
    "read_skill_sources",
    "remember_skill",
    "remember_skills",
    "skill_id_for",
    "write_skill",
    "write_skills",
]

SKILL_MIME_TYPE = "text/x-engramdb-skill"
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 4_000
MAX_PROCEDURE_BYTES = 512 * 1024


def skill_id_for(dataset_id: UUID, name: str) -> UUID:
    """A skill's id: one per (dataset, normalised name), so a new version replaces the old."""
    return stable_id("skill", dataset_id, normalise_name(name))


async def remember_skill(engine: Engine, request: RememberSkillRequest) -> SkillRecord:
    """Store one skill; see the module docstring for where each part goes."""
    _check(request.name, request.description, request.procedure)
    tag_list = validate_node_set(request.tags)
    dataset_name = validate_dataset_name(request.dataset_name)
    owner = await engine.resolve_user(request.user)
    dataset = await dataset_for_write(engine.store, owner, dataset_name)
    return await write_skill(
        engine, dataset, request.name, request.description, request.procedure, tag_list
    )


async def write_skill(
    engine: Engine,
    dataset: Dataset,
    name: str,
    description: str,
    procedure: str,
    tags: list[str] | None,
) -> SkillRecord:
    """Store one skill in ``dataset`` (the caller checked the write permission); a new version
    of a skill of the same name replaces the stored one."""
    name, description, procedure = _check(name, description, procedure)
    tag_list = tags or []
    store = engine.store
    dataset = await engine.bind_embedding(dataset)

    procedure_hash = _sha256(procedure)
    content_hash = _sha256("\x1f".join(("skill", name, description, procedure)))
    data_id = data_id_for(dataset.id, content_hash)
    skill_id = skill_id_for(dataset.id, name)
    text = f"{name}: {description}" if description else name
    record = SkillRecord(
        id=skill_id,
        data_id=data_id,
        dataset_id=dataset.id,
        dataset_name=dataset.name,
        name=name,
        description=description,
        tags=tag_list,
    )
    vector = (await engine.embedder.embed([text]))[0].astype(np.float32)

    async with store.lock(dataset_lock(dataset.id), timeout=engine.settings.engramdb_lock_timeout):
        if await store.find_data_by_hash(dataset.id, content_hash) is not None:
            return record.model_copy(update={"status": "skipped"})
        previous = await store.get_nodes([skill_id])
        run = await store.start_run(dataset.id, "remember_skill")
        try:
            written = await store.write_document(
                DocumentWrite(
                    data=DataRecord(
                        id=data_id,
                        dataset_id=dataset.id,
                        name=name,
                        content_hash=content_hash,
                        mime_type=SKILL_MIME_TYPE,
                        external_metadata={
                            "skill": {"procedure": procedure, "procedure_hash": procedure_hash}
                        },
                        node_set=tag_list,
                        size_bytes=len(procedure.encode("utf-8")),
                        created_at=utcnow(),
                    ),
                    nodes=[
                        Node(
                            id=skill_id,
                            dataset_id=dataset.id,
                            type=SKILL_NODE_TYPE,
                            name=name,
                            text=text,
                            properties={
                                "description": description,
                                "tags": tag_list,
                                "procedure_hash": procedure_hash,
                                "node_set": tag_list,
                            },
                        )
                    ],
                    vectors=[VectorRow(skill_id, SKILL_COLLECTION, vector)],
                    lexical={SKILL_COLLECTION: [(skill_id, text)]},
                )
            )
            # The new version now supports the node; drop the versions it replaces.
            for node in previous if written else []:
                for old in node.data_ids:
                    old_record = await store.get_data(old)
                    if old != data_id and old_record and old_record.mime_type == SKILL_MIME_TYPE:
                        await store.delete_data(old)
        except BaseException as exc:
            await store.fail_run(run.id, exc)
            raise
        await store.finish_run(run.id, RunStatus.COMPLETED, counts={"skills": int(written)})
    return record if written else record.model_copy(update={"status": "skipped"})


async def remember_skills(engine: Engine, request: RememberSkillsRequest) -> list[SkillRecord]:
    """Store skills written as markdown (SKILL.md style): a file, a directory searched for
    ``SKILL.md`` files, or the markdown text itself. See :func:`parse_skill_markdown`."""
    tags = validate_node_set(request.tags)
    parsed = read_skill_sources(request.path_or_text)
    owner = await engine.resolve_user(request.user)
    dataset = await dataset_for_write(
        engine.store, owner, validate_dataset_name(request.dataset_name)
    )
    return await write_skills(engine, dataset, parsed, tags)


def read_skill_sources(path_or_text: str | Path) -> list[tuple[str, str, str, list[str]]]:
    """The parsed skills (:func:`parse_skill_markdown`) of a SKILL.md file, of every SKILL.md
    under a directory, or of markdown text; EngramValidationError before anything is stored."""
    sources: list[tuple[str, str | None]] = []
    path = _as_path(path_or_text)
    if path is None:
        sources.append((str(path_or_text), None))
    elif path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.name.lower() == "skill.md")
        if not files:
            raise EngramValidationError(f"no SKILL.md file under {path}")
        sources.extend((_read(f), f.parent.name) for f in files)
    else:
        sources.append((_read(path), path.parent.name if path.name.lower() == "skill.md" else None))
    parsed = [parse_skill_markdown(text, default_name=fallback) for text, fallback in sources]
    for name, description, procedure, _ in parsed:
        _check(name, description, procedure)
    return parsed


async def write_skills(
    engine: Engine,
    dataset: Dataset,
    parsed: list[tuple[str, str, str, list[str]]],
    tags: list[str] | None,
) -> list[SkillRecord]:
    """Store parsed skills (:func:`read_skill_sources`) in ``dataset``, each with ``tags`` and
    its own tags."""
    records = []
    for name, description, procedure, own_tags in parsed:
        merged = list(dict.fromkeys([*(tags or []), *own_tags]))
        records.append(await write_skill(engine, dataset, name, description, procedure, merged))
    return records


_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
_FIELD = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


def parse_skill_markdown(
    text: str, *, default_name: str | None = None
) -> tuple[str, str, str, list[str]]:
    """``(name, description, procedure, tags)`` of a SKILL.md-style text.

    YAML-style front matter (``name:``, ``description:``, ``tags:``) wins; otherwise the first
    ``# heading`` is the name and the first paragraph after it the description. The procedure is
    the whole text after the front matter.
    """
    fields: dict[str, str] = {}
    body = text
    match = _FRONT_MATTER.match(text)
    if match:
        for line in match.group(1).splitlines():
            found = _FIELD.match(line.strip())
            if found:
                fields[found.group(1).lower()] = found.group(2).strip().strip("'\"")
        body = text[match.end() :]
    lines = body.strip().splitlines()
    name = fields.get("name", "")
    description = fields.get("description", "")
    heading = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
    if not name and heading is not None:
        name = lines[heading][2:].strip()
    if not description:
        start = heading + 1 if heading is not None else 0
        paragraph: list[str] = []
        for line in lines[start:]:
            if not line.strip():
                if paragraph:
                    break
                continue
            if line.startswith("#"):
                if paragraph:
                    break
                continue
            paragraph.append(line.strip())
        description = " ".join(paragraph)
    name = name or (default_name or "")
    if not name:
        raise EngramValidationError(
            "a skill needs a name: add front matter 'name: ...' or a '# Title' line"
        )
    raw_tags = fields.get("tags", "").strip("[]")
    tags = [t.strip().strip("'\"") for t in raw_tags.split(",") if t.strip()]
    return name, description, body.strip() or text.strip(), tags


async def load_skill(engine: Engine, request: LoadSkillRequest) -> Skill:
    """The skill with its procedure body.

    Raises PermissionDeniedError for an id that is unknown, not a skill, or in a dataset the
    user cannot read -- never telling those apart (SPEC R-ACL-1).
    """
    wanted = validate_uuid(request.skill_id, "skill_id")
    denied = PermissionDeniedError(f"no readable skill {wanted} (or it does not exist)")
    store = engine.store
    if not await engine.database_exists():
        raise denied
    owner = await engine.resolve_user(request.user)
    nodes = await store.get_nodes([wanted])
    if not nodes or nodes[0].type != SKILL_NODE_TYPE:
        raise denied
    node = nodes[0]
    try:  # the one permission check (engramdb.access); its refusal is replaced by ours
        await check(owner, node.dataset_id, "read", store=store)
    except PermissionDeniedError:
        raise denied from None
    skill = await skill_of(store, node)
    if skill is None:
        raise denied
    return skill


def _check(name: object, description: object, procedure: object) -> tuple[str, str, str]:
    if not isinstance(name, str) or not name.strip():
        raise EngramValidationError("a skill needs a non-empty name, e.g. 'deploy-service'")
    if len(name.strip()) > MAX_NAME_CHARS:
        raise EngramValidationError(f"a skill name may have at most {MAX_NAME_CHARS} characters")
    if not isinstance(description, str):
        raise EngramValidationError("a skill description must be a string")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise EngramValidationError(
            f"a skill description may have at most {MAX_DESCRIPTION_CHARS} characters; put "
            "details in the procedure"
        )
    if not isinstance(procedure, str) or not procedure.strip():
        raise EngramValidationError("a skill needs a non-empty procedure (the steps to follow)")
    if len(procedure.encode("utf-8")) > MAX_PROCEDURE_BYTES:
        raise EngramValidationError(
            f"a skill procedure may be at most {MAX_PROCEDURE_BYTES // 1024} KiB"
        )
    return name.strip(), " ".join(description.split()), procedure


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _as_path(value: str | Path) -> Path | None:
    if isinstance(value, Path):
        if not value.exists():
            raise EngramValidationError(f"{value} does not exist")
        return value
    if "\n" in value or len(value) > 4096:
        return None
    candidate = user_path(value)
    try:
        return candidate if candidate.exists() else None
    except OSError:
        return None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise EngramValidationError(f"cannot read skill file {path}: {exc}") from exc
