"""cognee's add, cognify and search over HTTP: the routes, and the SDK in remote mode giving what
it gives in-process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import UUID

import pytest

import engramdb
from engramdb import SearchType
from engramdb.engine import get_engine
from engramdb.models.results import RememberResult
from tests.server.conftest import Account, LiveServer

OWLS = "Owls hunt at night and sleep in hollow trees."
MARS = "# Mars\nMars has two moons, Phobos and Deimos."


@pytest.fixture
async def remote(live_server: LiveServer, alice: Account) -> AsyncIterator[LiveServer]:
    await engramdb.serve(live_server.url, api_key=alice.key)
    try:
        yield live_server
    finally:
        await engramdb.disconnect()


async def test_add_cognify_search_over_http_match_in_process(
    remote: LiveServer, alice: Account, tmp_path: Path
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "mars.md").write_text(MARS)
    added = await engramdb.add([OWLS, str(notes)], "space", node_set=["astro"])
    assert isinstance(added, RememberResult)
    assert sorted((i.name, i.status) for i in added.items)[0] == ("mars.md", "pending")
    assert await engramdb.search("Phobos", query_type=SearchType.CHUNKS) == []
    built = await engramdb.cognify(["space"])
    ((dataset_id, result),) = built.items()
    assert isinstance(dataset_id, UUID) and result.counts["documents"] == 2
    hits = await engramdb.search("Phobos moons", query_type=SearchType.CHUNKS, top_k=1)
    local = remote.call(
        get_engine().search("Phobos moons", query_type=SearchType.CHUNKS, top_k=1, user=alice.user)
    )
    assert hits == local
    assert hits[0]["document_name"] == "mars.md" and "Phobos" in hits[0]["text"]
    # by dataset id, in the background: polled like remember's runs
    await engramdb.add("Herons wade in shallow water.", dataset_id=dataset_id)
    (pending,) = (await engramdb.cognify([dataset_id], run_in_background=True)).values()
    assert pending.status == "running" and pending.run_id is not None
    done = await pending.wait()
    assert done.status == "completed" and done.counts["documents"] == 1
    assert await engramdb.cognify() == {}


async def test_routes_refuse_server_paths_and_unknown_datasets(
    live_server: LiveServer, alice: Account, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("server-side file")
    with live_server.client(alice) as http:
        refused = http.post("/api/v1/add", json={"data": [str(secret)]})
        assert refused.status_code == 422 and "path on the server" in refused.text
        missing = http.post("/api/v1/cognify", json={"datasets": ["nope"]})
        assert missing.status_code == 404 and missing.json()["missing"] == ["nope"]
        upload = http.post(
            "/api/v1/add",
            data={"dataset_name": "up", "node_set": ["a"]},
            files=[("files", ("mars.md", MARS.encode()))],
        )
        assert upload.status_code == 200, upload.text
        assert upload.json()["items"][0]["name"] == "mars.md"
        built = http.post("/api/v1/cognify", json={"datasets": ["up"]})
        assert built.status_code == 200 and len(built.json()) == 1
        found = http.post(
            "/api/v1/search", json={"query_text": "Deimos", "query_type": "CHUNKS", "top_k": 1}
        )
        assert found.status_code == 200 and "Deimos" in found.json()[0]["text"]


async def test_another_users_data_stays_theirs_over_http(
    live_server: LiveServer, alice: Account, bob: Account
) -> None:
    with live_server.client(alice) as http:
        http.post("/api/v1/add", json={"data": OWLS}).raise_for_status()
        http.post("/api/v1/cognify", json={}).raise_for_status()
    with live_server.client(bob) as http:
        found = http.post("/api/v1/search", json={"query_text": "owls", "query_type": "CHUNKS"})
        assert found.status_code == 200 and found.json() == []
        assert http.post("/api/v1/cognify", json={}).json() == {}


async def test_the_datasets_namespace_over_http(remote: LiveServer, alice: Account) -> None:
    added = await engramdb.add([OWLS, MARS], "space")
    await engramdb.cognify()
    (dataset,) = await engramdb.datasets.list_datasets()
    items = await engramdb.datasets.list_data(dataset.id)
    assert [d.id for d in items] == added.data_ids and items[0].status == "completed"
    assert await engramdb.datasets.has_data(dataset.id) is True
    status = await engramdb.datasets.get_status([dataset.id])
    assert status == {str(dataset.id): "DATASET_PROCESSING_COMPLETED"}
    progress = await engramdb.datasets.get_progress([dataset.id])
    assert progress[str(dataset.id)]["status"] == "DATASET_PROCESSING_COMPLETED"
    ok = await engramdb.datasets.delete_data(dataset.id, added.data_ids[0])
    assert ok == {"status": "success"}
    local = remote.call(get_engine().datasets.list_data(dataset.id, user=alice.user))
    assert [d.id for d in local] == [added.data_ids[1]]
    with pytest.raises(engramdb.FeatureNotAvailableError, match="remote mode"):
        await engramdb.update(added.data_ids[1], OWLS, dataset.id)


async def test_an_uploaded_file_does_not_show_the_servers_paths(
    remote: LiveServer, tmp_path: Path
) -> None:
    notes = tmp_path / "mars.md"
    notes.write_text(MARS)
    await engramdb.add(str(notes), "up")
    (dataset,) = await engramdb.datasets.list_datasets()
    (item,) = await engramdb.datasets.list_data(dataset.id)
    assert (item.name, item.status, item.raw_data_location) == ("mars.md", "pending", None)
