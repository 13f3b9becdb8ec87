"""Export and import (issue 15, item 6): a versioned, lossless archive of a store.

"a documented, versioned, lossless archive of datasets (data records, graph, weights, sessions,
feedback, preferences, conflicts; vectors optional and re-computable) that moves a store between
SQLite and PostgreSQL and between machines; import is idempotent and transactional per
document."
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

import engramdb
from engramdb.archive import format as fmt
from engramdb.engine import Engine
from engramdb.settings import config
from engramdb.storage.sqlite import SqliteStore
from engramdb.storage.types import DocumentWrite
from tests.support.openai_server import OpenAIServer

TEXTS = (
    "Marie Curie worked in Paris. She discovered polonium with Pierre Curie.",
    "Owls hunt at night. The barn owl lives in old barns across Europe.",
    "Herons wade in shallow water and eat fish.",
)
QUESTIONS = ("Who discovered polonium?", "Where does the barn owl live?", "What do herons eat?")


@pytest.fixture(autouse=True)
def personalised() -> None:
    """Ratings become preference nodes (derived elements the archive must carry)."""
    config.set("personalization_enabled", True)


async def build_sample(mem: Engine) -> None:
    """A store with every kind the archive holds: documents and their graph, improve's derived
    elements and state, a staged input, a second user with a grant, sessions with a rated
    answer, a trace step and guidance."""
    for text in TEXTS[:2]:
        await mem.remember(text, dataset_name="science", self_improvement=False)
    await mem.remember(TEXTS[2], dataset_name="birds", self_improvement=False)
    await mem.add("Kingfishers dive for fish.", "birds")  # staged, not built
    await mem.add("To sort later.", "inbox")  # a dataset of staged inputs only: no embedding
    found = await mem.recall(QUESTIONS[0], datasets=["science"], session_id="chat-1")
    assert found
    (turn,) = await mem.session.get_session("chat-1", last_n=1)
    await mem.session.add_feedback("chat-1", turn.qa_id, feedback_score=5)
    await mem.session.add_trace("chat-1", "lookup_tool", method_params={"q": "polonium"})
    await mem.session.add_guidance("chat-1", "Answer in one sentence.", section="rules")
    await mem.improve(dataset="science", session_ids=["chat-1"])
    colleague = await mem.create_user("colleague@example.com")
    (science,) = [d for d in await mem.list_datasets() if d.name == "science"]
    await mem.grant(science.id, colleague.id, "read")
    await mem.remember("Colleague's own note.", dataset_name="private", user=colleague)


def archive_files(path: Path) -> dict[str, bytes]:
    if path.is_dir():
        return {p.name: p.read_bytes() for p in sorted(path.iterdir())}
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in sorted(z.namelist())}


def records(path: Path, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in archive_files(path)[name].decode().splitlines()]


async def answers(mem: Engine) -> list[list[str]]:
    return [
        [r.text for r in await mem.recall(q, engramdb.SearchType.CHUNKS, datasets=["science"])]
        for q in QUESTIONS
    ]


async def test_an_archive_holds_every_kind_and_moves_the_store(tmp_path: Path) -> None:
    """Export, import into a new store, export again: byte-identical; recall answers alike."""
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        report = await engramdb.export_archive(tmp_path / "one", engine=source)
        before = await answers(source)
    assert all(before), "every question finds its passage"
    counts = report.records
    for kind in ("data.jsonl", "nodes.jsonl", "edges.jsonl", "index.jsonl", "derived.jsonl"):
        assert counts[kind] > 0, kind
    owners = {r["owner"].split(":")[0] for r in records(tmp_path / "one", "derived.jsonl")}
    assert owners == {"global_context_index", "preferences"}
    for kind in ("grants.jsonl", "session_qa.jsonl", "session_traces.jsonl"):
        assert counts[kind] == 1, kind
    assert counts["staged.jsonl"] == 2
    assert counts["session_guidance.jsonl"] == 1 and counts["session_marks.jsonl"] > 0
    (qa,) = records(tmp_path / "one", "session_qa.jsonl")
    assert qa["feedback_score"] == 5 and qa["user"] == "default_user@example.com"
    manifest = json.loads(archive_files(tmp_path / "one")["manifest.json"])
    assert manifest["format"] == "engramdb-archive" and manifest["format_version"] == 1
    assert not manifest["with_vectors"] and "vectors.jsonl" not in manifest["files"]
    assert sorted(d["name"] for d in manifest["datasets"]) == [
        "birds",
        "inbox",
        "private",
        "science",
    ]

    async with Engine(data_dir=tmp_path / "b") as target:
        imported = await engramdb.import_archive(tmp_path / "one", engine=target)
        assert imported.documents_written == counts["data.jsonl"]
        assert imported.vectors_embedded > 0
        await engramdb.export_archive(tmp_path / "two", engine=target)
        assert await answers(target) == before
    assert archive_files(tmp_path / "one") == archive_files(tmp_path / "two")


async def test_importing_twice_changes_nothing(tmp_path: Path) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        report = await engramdb.export_archive(tmp_path / "one", engine=source)
    async with Engine(data_dir=tmp_path / "b") as target:
        await engramdb.import_archive(tmp_path / "one", engine=target)
        again = await engramdb.import_archive(tmp_path / "one", engine=target)
        assert again.datasets_created == again.documents_written == 0
        assert again.documents_skipped == report.records["data.jsonl"]
        assert again.vectors_embedded == 0
        assert again.session_entries == 0
        await engramdb.export_archive(tmp_path / "two", engine=target)
    assert archive_files(tmp_path / "one") == archive_files(tmp_path / "two")


async def test_vectors_travel_when_asked_and_a_zip_holds_the_same_files(tmp_path: Path) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        await engramdb.export_archive(tmp_path / "plain", engine=source)
        await engramdb.export_archive(tmp_path / "full.zip", engine=source, with_vectors=True)
        before = await answers(source)
    full = archive_files(tmp_path / "full.zip")
    plain = archive_files(tmp_path / "plain")
    assert set(full) == set(plain) | {"vectors.jsonl"}
    assert all(full[name] == plain[name] for name in plain if name != "manifest.json")
    async with Engine(data_dir=tmp_path / "b") as target:
        imported = await target.import_archive(tmp_path / "full.zip")  # the Engine method
        assert imported.vectors_embedded == 0, "the archive's vectors are used as they are"
        assert await answers(target) == before
        await target.export_archive(tmp_path / "again.zip", with_vectors=True)
    assert archive_files(tmp_path / "again.zip") == full


async def test_a_user_exports_only_what_they_can_read(tmp_path: Path) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        colleague = await source.store.find_user_by_email("colleague@example.com")
        assert colleague is not None
        report = await engramdb.export_archive(tmp_path / "mine", engine=source, user=colleague)
        assert sorted(report.datasets) == ["private", "science"]  # own + granted, not birds
        assert report.records["session_qa.jsonl"] == 0, "another user's sessions stay out"
        assert report.records["grants.jsonl"] == 0, "grants of a dataset they do not own"
        one = await engramdb.export_archive(tmp_path / "one", engine=source, datasets=["birds"])
        assert one.datasets == ["birds"] and one.records["session_qa.jsonl"] == 0
        with pytest.raises(engramdb.DatasetNotFoundError, match="birds"):
            await engramdb.export_archive(
                tmp_path / "no", engine=source, user=colleague, datasets=["birds"]
            )
    assert not (tmp_path / "no").exists()


def _damage(path: Path, name: str, edit: Any) -> None:
    target = path / name
    target.write_bytes(edit(target.read_bytes()))


@pytest.mark.parametrize(
    ("name", "edit", "message"),
    [
        ("nodes.jsonl", lambda b: b.replace(b'"Chunk"', b'"Chonk"', 1), "nodes.jsonl was changed"),
        ("data.jsonl", lambda b: b[: len(b) // 2], "data.jsonl was changed"),
        (
            "manifest.json",
            lambda b: b.replace(b'"format_version":1', b'"format_version":99'),
            "format version 99",
        ),
        ("manifest.json", lambda b: b"not json", "manifest.json is not JSON"),
    ],
)
async def test_a_damaged_or_unsupported_archive_is_refused_and_writes_nothing(
    tmp_path: Path, name: str, edit: Any, message: str
) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        await engramdb.export_archive(tmp_path / "one", engine=source)
    _damage(tmp_path / "one", name, edit)
    async with Engine(data_dir=tmp_path / "b") as target:
        with pytest.raises(engramdb.EngramValidationError, match=message):
            await engramdb.import_archive(tmp_path / "one", engine=target)
        assert not await target.database_exists() or await target.store.list_datasets() == []


async def test_a_record_that_is_not_valid_names_its_file_and_line(tmp_path: Path) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        await engramdb.export_archive(tmp_path / "one", engine=source)
    lines = (tmp_path / "one" / "edges.jsonl").read_bytes().splitlines(keepends=True)
    lines[1] = b'{"id": "not an id"}\n'
    data = b"".join(lines)
    (tmp_path / "one" / "edges.jsonl").write_bytes(data)
    manifest = json.loads((tmp_path / "one" / "manifest.json").read_text())
    manifest["files"]["edges.jsonl"]["sha256"] = fmt.sha256(data)  # a forged checksum
    (tmp_path / "one" / "manifest.json").write_text(fmt.canonical(manifest))
    async with Engine(data_dir=tmp_path / "b") as target:
        with pytest.raises(engramdb.EngramValidationError, match=r"edges\.jsonl line 2"):
            await engramdb.import_archive(tmp_path / "one", engine=target)


class _FailingStore(SqliteStore):
    """Fails the document write of one named data record (a crash in the middle of an import)."""

    doomed: str = ""

    async def write_document(self, doc: DocumentWrite) -> bool:
        if doc.data.name == self.doomed:
            raise OSError("disk unplugged")
        return await super().write_document(doc)


async def test_a_failed_import_leaves_each_document_whole_and_can_be_resumed(
    tmp_path: Path,
) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        await engramdb.export_archive(tmp_path / "one", engine=source)
    data = records(tmp_path / "one", "data.jsonl")
    doomed = sorted(data, key=lambda r: (r["created_at"], r["id"]))[1]
    store = _FailingStore(tmp_path / "b" / "engramdb.sqlite3")
    store.doomed = doomed["name"]
    async with Engine(data_dir=tmp_path / "b", store=store) as target:
        with pytest.raises(OSError, match="disk unplugged"):
            await engramdb.import_archive(tmp_path / "one", engine=target)
        derived = {d["id"] for d in records(tmp_path / "one", "derived.jsonl")}
        nodes = [n for n in records(tmp_path / "one", "nodes.jsonl") if n["id"] not in derived]
        present = 0
        for record in data:  # each document fully in, or not at all
            own = [UUID(n["id"]) for n in nodes if n["data_ids"] == [record["id"]]]
            assert own, record["name"]
            stored = await store.get_nodes(own)
            if await store.get_data(UUID(record["id"])) is None:
                assert stored == [], record["name"]
            else:
                assert len(stored) == len(own), record["name"]
                present += 1
        assert await store.get_data(UUID(doomed["id"])) is None
        assert 0 < present < len(data)
    async with Engine(data_dir=tmp_path / "b") as target:  # the same store, working again
        resumed = await engramdb.import_archive(tmp_path / "one", engine=target)
        assert resumed.documents_skipped == present
        assert resumed.documents_written == len(data) - present
        await engramdb.export_archive(tmp_path / "two", engine=target)
    assert archive_files(tmp_path / "one") == archive_files(tmp_path / "two")


async def test_export_refuses_an_existing_destination(tmp_path: Path) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        (tmp_path / "taken").mkdir()
        (tmp_path / "taken" / "file").write_text("mine")
        with pytest.raises(engramdb.EngramValidationError, match="exists"):
            await engramdb.export_archive(tmp_path / "taken", engine=source)
    assert (tmp_path / "taken" / "file").read_text() == "mine"


async def test_fact_conflicts_and_their_resolution_travel(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    """A conflict improve found (through the real LLM client) and the user's resolution of it
    are the same after an import, and recall still labels the facts."""
    from tests.integration.test_conflicts import _setup, _verdict

    await _setup(openai_server)
    openai_server.enqueue("chat/completions", _verdict(openai_server, current=2))
    await engramdb.improve(build_global_context_index=False)
    (conflict,) = await engramdb.list_conflicts()
    paris = next(f for f in conflict.facts if f.value == "Paris")
    resolved = await engramdb.resolve_conflict(conflict.id, paris.edge_id)
    report = await engramdb.export_archive(tmp_path / "one")
    assert report.records["derived.jsonl"] > 0
    async with Engine(data_dir=tmp_path / "b") as target:
        await engramdb.import_archive(tmp_path / "one", engine=target)
        (moved,) = await target.list_conflicts()
        assert moved == resolved
        hits = await target.recall("Alice Smith Paris", engramdb.SearchType.CHUNKS)
        labelled = next(h for h in hits if "Paris" in h.text)
        assert labelled.metadata["fact_conflicts"] == [
            "Alice Smith live in Paris [current, effective 2020-01-01]"
        ]


def test_the_commands_export_and_import(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from engramdb.cli import app

    cli = CliRunner()
    live, copy = str(tmp_path / "live"), str(tmp_path / "copy")
    for text in TEXTS:
        assert cli.invoke(app, ["remember", text, "--data-dir", live]).exit_code == 0
    out = cli.invoke(app, ["export", str(tmp_path / "a.zip"), "--data-dir", live, "--with-vectors"])
    assert out.exit_code == 0, out.output
    assert "exported 1 dataset(s), 3 document(s)" in out.output
    first = cli.invoke(app, ["import", str(tmp_path / "a.zip"), "--data-dir", copy])
    assert first.exit_code == 0, first.output
    assert "3 document(s) written, 0 already there, 0 vector(s) embedded" in first.output
    again = cli.invoke(app, ["import", str(tmp_path / "a.zip"), "--data-dir", copy])
    assert "0 document(s) written, 3 already there" in again.output
    found = cli.invoke(app, ["recall", "What do herons eat?", "--data-dir", copy])
    assert found.exit_code == 0 and "Herons" in found.output
    (tmp_path / "a.zip").write_bytes(b"PK not really")
    broken = cli.invoke(app, ["import", str(tmp_path / "a.zip"), "--data-dir", copy])
    assert broken.exit_code == 2 and "not a usable engramdb archive" in broken.output
    taken = cli.invoke(app, ["export", str(tmp_path / "a.zip"), "--data-dir", live])
    assert taken.exit_code == 2 and "exists" in taken.output


async def test_a_dataset_name_taken_by_another_dataset_is_refused_before_writing(
    tmp_path: Path,
) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        await engramdb.export_archive(tmp_path / "one", engine=source)
    async with Engine(data_dir=tmp_path / "b") as target:
        await target.remember("Something else entirely.", dataset_name="science")
        with pytest.raises(engramdb.ConflictError, match="'science'"):
            await engramdb.import_archive(tmp_path / "one", engine=target)
        assert [d.name for d in await target.list_datasets()] == ["science"]
        assert await target.store.find_user_by_email("colleague@example.com") is None
        assert await target.session.list_sessions() == []


async def test_connected_to_a_server_the_default_store_is_not_exported(tmp_path: Path) -> None:
    """An archive is read and written where the store is: over HTTP it is refused, naming the
    command to run on the server."""
    engramdb.serve("http://127.0.0.1:9")  # not awaited: nothing is contacted
    try:
        with pytest.raises(engramdb.FeatureNotAvailableError, match="engramdb export"):
            await engramdb.export_archive(tmp_path / "x")
        with pytest.raises(engramdb.FeatureNotAvailableError, match="engramdb import"):
            await engramdb.import_archive(tmp_path / "x")
    finally:
        await engramdb.disconnect()
    assert not (tmp_path / "x").exists()


async def test_importing_as_a_user_makes_everything_theirs(tmp_path: Path) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        await engramdb.export_archive(tmp_path / "one", engine=source)
        before = await answers(source)
    async with Engine(data_dir=tmp_path / "b") as target:
        bob = await target.create_user("bob@example.com")
        await engramdb.import_archive(tmp_path / "one", engine=target, user=bob)
        mine = await target.list_datasets(user=bob)
        assert sorted(d.name for d in mine) == ["birds", "inbox", "private", "science"]
        assert all(d.owner_id == bob.id for d in mine)
        assert await target.list_datasets() == [], "the default user got nothing"
        assert [s.session_id for s in await target.session.list_sessions(user=bob)] == ["chat-1"]
        assert await target.store.find_user_by_email("colleague@example.com") is None
        found = [
            [r.text for r in await target.recall(q, "CHUNKS", datasets=["science"], user=bob)]
            for q in QUESTIONS
        ]
        assert found == before


async def test_vectors_of_another_model_are_made_again_by_this_stores_embedder(
    tmp_path: Path,
) -> None:
    async with Engine(data_dir=tmp_path / "a") as source:
        await build_sample(source)
        report = await engramdb.export_archive(tmp_path / "v.zip", engine=source, with_vectors=True)
        before = await answers(source)
    config.set("embedding_dimensions", 32)  # another model: the archive's vectors do not fit
    async with Engine(data_dir=tmp_path / "b") as target:
        imported = await engramdb.import_archive(tmp_path / "v.zip", engine=target)
        assert imported.vectors_embedded == report.records["vectors.jsonl"]
        dims = {d.name: d.embedding_dim for d in await target.list_datasets()}
        assert dims == {"science": 32, "birds": 32, "inbox": None}  # inbox: staged only
        # another model ranks differently; what is found is the same
        assert [sorted(a) for a in await answers(target)] == [sorted(b) for b in before]
