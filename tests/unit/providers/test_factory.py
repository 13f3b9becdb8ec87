"""build_embedder: settings to embedder, with ConfigurationErrors that name the fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engramdb.errors import ConfigurationError
from engramdb.providers.embedding import (
    FakeEmbedder,
    OnnxEmbedder,
    OpenAICompatibleEmbedder,
    build_embedder,
)
from engramdb.settings import Settings


def settings(**values: Any) -> Settings:
    """Settings with the documented defaults for the embedding fields (the shared test setup
    exports EMBEDDING_PROVIDER=fake, which explicit values override)."""
    defaults: dict[str, Any] = {
        "embedding_provider": "onnx",
        "embedding_model": "all-MiniLM-L6-v2",
        "embedding_dimensions": 384,
    }
    return Settings(_env_file=None, **{**defaults, **values})  # type: ignore[call-arg]


def test_default_is_the_local_onnx_model_and_loads_nothing() -> None:
    embedder = build_embedder(settings())
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.model_name == "all-MiniLM-L6-v2"
    assert embedder.dimension == 384
    assert embedder._session is None


def test_onnx_passes_the_settings(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    embedder = build_embedder(
        settings(
            engramdb_onnx_model_path=str(model),
            engramdb_onnx_threads=2,
            embedding_max_tokens=128,
            embedding_batch_size=8,
            embedding_model="sentence-transformers/all-MiniLM-L6-v2",
        )
    )
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder._model_path == model
    assert embedder._threads == 2
    assert embedder._max_tokens == 128
    assert embedder._batch_size == 8


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"embedding_dimensions": 768}, "EMBEDDING_DIMENSIONS=384"),
        ({"embedding_model": "text-embedding-3-small"}, "EMBEDDING_MODEL=all-MiniLM-L6-v2"),
        ({"embedding_max_tokens": 1024}, "EMBEDDING_MAX_TOKENS"),
    ],
)
def test_onnx_misconfiguration(values: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment):
        build_embedder(settings(**values))


def test_openai() -> None:
    embedder = build_embedder(
        settings(
            embedding_provider="openai",
            embedding_endpoint="http://127.0.0.1:11434/v1/",
            embedding_model="nomic-embed-text",
            embedding_api_key="sk-whatever-123456",
            embedding_dimensions=768,
            embedding_batch_size=16,
        )
    )
    assert isinstance(embedder, OpenAICompatibleEmbedder)
    assert embedder.model_name == "nomic-embed-text"
    assert embedder.dimension == 768
    assert embedder._url == "http://127.0.0.1:11434/v1/embeddings"
    assert embedder._batch_size == 16


def test_openai_without_endpoint_says_to_set_it() -> None:
    with pytest.raises(ConfigurationError, match="EMBEDDING_ENDPOINT"):
        build_embedder(settings(embedding_provider="openai", embedding_model="m"))


def test_openai_endpoint_must_be_a_url() -> None:
    with pytest.raises(ConfigurationError, match="EMBEDDING_ENDPOINT"):
        build_embedder(
            settings(embedding_provider="openai", embedding_endpoint="localhost:8080/v1")
        )


def test_openai_without_model() -> None:
    with pytest.raises(ConfigurationError, match="EMBEDDING_MODEL"):
        build_embedder(
            settings(
                embedding_provider="openai",
                embedding_endpoint="http://127.0.0.1:1/v1",
                embedding_model=" ",
            )
        )


def test_fake_uses_the_configured_dimension() -> None:
    embedder = build_embedder(settings(embedding_provider="fake", embedding_dimensions=32))
    assert isinstance(embedder, FakeEmbedder)
    assert embedder.dimension == 32
    assert embedder.model_name == "fake-hash-32"
