"""Build the configured embedder from settings.

The concrete modules are imported inside :func:`build_embedder`, so importing engramdb never
imports onnxruntime, tokenizers or httpx; only the provider actually chosen is loaded, and only
when an engine first needs an embedder.
"""

from __future__ import annotations

from engramdb.errors import ConfigurationError
from engramdb.paths import user_path
from engramdb.providers.embedding.base import Embedder
from engramdb.settings import Settings

__all__ = ["build_embedder"]

#: Names under which the local model may be configured in EMBEDDING_MODEL.
_LOCAL_MODEL_NAMES = frozenset({"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})


def build_embedder(settings: Settings) -> Embedder:
    """The embedder ``settings.embedding_provider`` names, configured from ``settings``.

    Raises ConfigurationError naming the variable to set when the combination cannot work, so a
    misconfiguration fails at start-up rather than on the first document.
    """
    provider = settings.embedding_provider
    if provider == "onnx":
        return _build_onnx(settings)
    if provider == "openai":
        return _build_openai(settings)
    if provider == "fake":
        from engramdb.providers.embedding.fake import FakeEmbedder

        return FakeEmbedder(dimension=settings.embedding_dimensions)
    raise ConfigurationError(  # unreachable while Settings validates the Literal
        f"unknown EMBEDDING_PROVIDER {provider!r}; use onnx, openai or fake"
    )


def _build_onnx(settings: Settings) -> Embedder:
    from engramdb.providers.embedding.onnx_local import (
        MINILM_DIMENSION,
        MINILM_MAX_POSITIONS,
        MINILM_MODEL_NAME,
        OnnxEmbedder,
    )

    model = settings.embedding_model.strip()
    if model and model.lower() not in _LOCAL_MODEL_NAMES:
        raise ConfigurationError(
            f"EMBEDDING_PROVIDER=onnx runs only {MINILM_MODEL_NAME}, but EMBEDDING_MODEL is "
            f"{model!r}; set EMBEDDING_MODEL={MINILM_MODEL_NAME} (or unset it), or use "
            "EMBEDDING_PROVIDER=openai with EMBEDDING_ENDPOINT for other models"
        )
    if settings.embedding_dimensions != MINILM_DIMENSION:
        raise ConfigurationError(
            f"EMBEDDING_PROVIDER=onnx ({MINILM_MODEL_NAME}) produces vectors of dimension "
            f"{MINILM_DIMENSION}, but EMBEDDING_DIMENSIONS is {settings.embedding_dimensions}; set "
            f"EMBEDDING_DIMENSIONS={MINILM_DIMENSION} (or unset it)"
        )
    if settings.embedding_max_tokens > MINILM_MAX_POSITIONS:
        raise ConfigurationError(
            f"EMBEDDING_MAX_TOKENS={settings.embedding_max_tokens} exceeds {MINILM_MODEL_NAME}'s "
            f"limit of {MINILM_MAX_POSITIONS} tokens; set EMBEDDING_MAX_TOKENS to at most "
            f"{MINILM_MAX_POSITIONS} (256 is the model's trained length)"
        )
    raw_path = settings.engramdb_onnx_model_path.strip()
    return OnnxEmbedder(
        user_path(raw_path) if raw_path else None,
        threads=settings.engramdb_onnx_threads,
        max_tokens=settings.embedding_max_tokens,
        batch_size=settings.embedding_batch_size,
    )


def _build_openai(settings: Settings) -> Embedder:
    from engramdb.providers.embedding.openai_compatible import OpenAICompatibleEmbedder

    endpoint = settings.embedding_endpoint.strip()
    if not endpoint:
        raise ConfigurationError(
            "EMBEDDING_PROVIDER=openai needs EMBEDDING_ENDPOINT: set it to the API's base URL, "
            "e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama)"
        )
    if not endpoint.startswith(("http://", "https://")):
        raise ConfigurationError(
            "EMBEDDING_ENDPOINT must be an http:// or https:// URL such as "
            "https://api.openai.com/v1"
        )
    if not settings.embedding_model.strip():
        raise ConfigurationError(
            "EMBEDDING_PROVIDER=openai needs EMBEDDING_MODEL, e.g. text-embedding-3-small"
        )
    return OpenAICompatibleEmbedder(
        endpoint,
        settings.embedding_model.strip(),
        settings.embedding_api_key,
        dimension=settings.embedding_dimensions,
        batch_size=settings.embedding_batch_size,
    )
