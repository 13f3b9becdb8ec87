"""``GET /metrics`` scraped from the real server (issue 16, item 4: "Prometheus-format
`/metrics` (requests, latencies, LLM calls and tokens, ingest throughput, queue depth of
background runs)"), parsed with prometheus_client's own parser."""

from __future__ import annotations

import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from engramdb.settings import config
from tests.server.conftest import Account, LiveServer


def scrape(
    server: LiveServer, headers: dict[str, str]
) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``: (name, sorted labels) -> value."""
    with server.client() as client:
        answer = client.get("/metrics", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_requests_verbs_and_ingest_are_counted(live_server: LiveServer, alice: Account) -> None:
    before = scrape(live_server, alice.headers)
    with live_server.client(alice) as client:
        added = client.post(
            "/api/v1/remember",
            json={"data": ["Owls hunt at night.", "Cats sleep all day."], "dataset_name": "zoo"},
        )
        assert added.status_code == 200, added.text
        for _ in range(3):
            found = client.post(
                "/api/v1/recall", json={"query_text": "owls", "query_type": "CHUNKS", "top_k": 1}
            )
            assert found.status_code == 200, found.text
        assert client.get("/api/v1/datasets/no-such-route-here").status_code in (404, 405, 422)
    after = scrape(live_server, alice.headers)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    route = {"method": "POST", "route": "/api/v1/recall"}
    assert grew("engramdb_http_requests_total", **route, status="200") == 3
    assert grew("engramdb_http_request_duration_seconds_count", **route) == 3
    assert grew("engramdb_verb_duration_seconds_count", verb="recall", outcome="ok") == 3
    assert grew("engramdb_verb_duration_seconds_count", verb="remember", outcome="ok") == 1
    assert grew("engramdb_ingested_total", kind="documents") == 2
    assert grew("engramdb_ingested_total", kind="chunks") >= 2
    # The label is the route template, never the concrete path.
    assert not any("no-such-route-here" in dict(labels).get("route", "") for _, labels in after)


def test_finished_background_runs_leave_the_gauge(live_server: LiveServer, alice: Account) -> None:
    def running(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float]) -> float:
        return sum(v for (n, _), v in samples.items() if n == "engramdb_background_runs")

    before = running(scrape(live_server, alice.headers))  # runs other tests left behind
    with live_server.client(alice) as client:
        started = client.post(
            "/api/v1/remember",
            json={"data": "Bats fly at dusk.", "dataset_name": "bg", "run_in_background": True},
        )
        assert started.status_code in (200, 202), started.text
        run_id = started.json()["run_id"]
        deadline = time.monotonic() + 30
        while client.get(f"/api/v1/runs/{run_id}").json()["status"] == "running":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    live_server.call(_idle())
    after = scrape(live_server, alice.headers)
    assert running(after) == before


async def _idle() -> None:
    from engramdb.engine import get_engine

    assert await get_engine().wait_for_background_tasks(30)


def test_metrics_need_an_api_key_by_default(live_server: LiveServer, alice: Account) -> None:
    with live_server.client() as client:
        refused = client.get("/metrics")
        assert refused.status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert scrape(live_server, {"X-Api-Key": alice.key})


def test_a_metrics_token_replaces_the_api_key(live_server: LiveServer, alice: Account) -> None:
    config.set("engramdb_metrics_token", "scrape-secret-123")
    assert scrape(live_server, {"Authorization": "Bearer scrape-secret-123"})
    with live_server.client(alice) as client:
        assert client.get("/metrics").status_code == 401
    with live_server.client() as client:
        assert client.get("/metrics").status_code == 401


@pytest.mark.parametrize("path", ["/openapi.json"])
def test_metrics_route_is_not_in_the_api_document(live_server: LiveServer, path: str) -> None:
    with live_server.client() as client:
        assert "/metrics" not in client.get(path).json()["paths"]


def test_metrics_switched_off_is_a_404(live_server: LiveServer, alice: Account) -> None:
    config.set("engramdb_metrics_enabled", False)
    with live_server.client(alice) as client:
        off = client.get("/metrics")
    assert off.status_code == 404
    assert "ENGRAMDB_METRICS_ENABLED" in off.text
