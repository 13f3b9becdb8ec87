"""CACHE_BACKEND, the reference's session cache choice: engramdb's own store serves every choice
that needs no service (and get_cache_config() reports the choice back, as cognee programs check
it); a choice that needs a service (Redis, tapes) is refused, naming what to use instead."""

from __future__ import annotations

import pytest

import engramdb
from engramdb.compat.cognee.infrastructure.databases.cache.config import get_cache_config
from engramdb.errors import ConfigurationError
from engramdb.settings import Config, config


@pytest.mark.parametrize("backend", ["fs", "sqlite", "postgres", " FS "])
async def test_a_cache_backend_without_a_service_keeps_sessions_in_the_store(backend: str) -> None:
    config.set("cache_backend", backend)
    cache = get_cache_config()
    assert cache.caching is True and cache.cache_backend == backend.strip().lower()

    await engramdb.remember("Owls hunt small rodents at night.", dataset_name="nature")
    await engramdb.recall("Where do owls hunt?", session_id="chat")
    (turn,) = await engramdb.session.get_session("chat")
    assert turn.question == "Where do owls hunt?" and "Owls hunt" in turn.context
    assert await engramdb.session.add_feedback("chat", turn.qa_id, feedback_score=5)


@pytest.mark.parametrize(("backend", "service"), [("redis", "Redis"), ("tapes", "tapes ingest")])
def test_a_cache_backend_that_needs_a_service_is_refused_naming_the_alternatives(
    backend: str, service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusal = f"needs a {service} service.*CACHE_BACKEND=sqlite"
    with pytest.raises(ConfigurationError, match=refusal):
        config.set("cache_backend", backend)
    monkeypatch.setenv("CACHE_BACKEND", backend.upper())
    with pytest.raises(ConfigurationError, match="fs or postgres"):
        Config().settings  # noqa: B018 - reading the environment is what raises


def test_an_unknown_cache_backend_lists_the_valid_ones() -> None:
    with pytest.raises(ConfigurationError, match="valid: sqlite, fs, postgres"):
        config.set("cache_backend", "memcached")
