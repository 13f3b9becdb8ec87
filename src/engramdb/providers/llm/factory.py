"""Build the configured LLM from settings.

The concrete client module is imported inside :func:`build_llm`, and it imports the ``openai``
SDK only on its first request, so importing engramdb never loads the SDK.
"""

from __future__ import annotations

from engramdb.errors import ConfigurationError
from engramdb.providers.llm.base import LLM, ResponseCache
from engramdb.settings import Settings

__all__ = ["build_llm"]

#: LLM_PROVIDER values served by the OpenAI-compatible client, with the base URL used when
#: LLM_ENDPOINT is empty (None: the provider has no usable default, LLM_ENDPOINT is required).
_PROVIDERS: dict[str, str | None] = {
    "openai": "https://api.openai.com/v1",
    "ollama": "http://localhost:11434/v1",
    "vllm": "http://localhost:8000/v1",
    "llama_cpp": "http://localhost:8080/v1",
    "lm_studio": "http://localhost:1234/v1",
    "custom": None,
    "openai_compatible": None,
    "litellm": None,
    # Vendors that also serve an OpenAI-compatible endpoint; it must be given explicitly.
    "anthropic": None,
    "gemini": None,
    "mistral": None,
    "groq": None,
    "openrouter": None,
    "deepseek": None,
    "together": None,
}


def build_llm(settings: Settings, *, cache: ResponseCache | None = None) -> LLM | None:
    """The LLM the settings describe, or None when no LLM is configured (no LLM_API_KEY and no
    LLM_ENDPOINT): engramdb then works offline.

    Raises ConfigurationError naming the variable to fix when the combination cannot work, so a
    misconfiguration fails at start-up rather than on the first document.
    """
    if not settings.llm_configured:
        return None
    provider = settings.llm_provider.strip().lower().replace("-", "_").replace(" ", "_")
    provider = {"lmstudio": "lm_studio", "llamacpp": "llama_cpp"}.get(provider, provider)
    if provider not in _PROVIDERS:
        raise ConfigurationError(
            f"unknown LLM_PROVIDER {settings.llm_provider!r}; engramdb speaks the OpenAI chat "
            f"protocol: use one of {', '.join(sorted(_PROVIDERS))} (with LLM_ENDPOINT for any "
            "other OpenAI-compatible server)"
        )
    endpoint = settings.llm_endpoint.strip() or _PROVIDERS[provider]
    if not endpoint:
        raise ConfigurationError(
            f"LLM_PROVIDER={provider} needs LLM_ENDPOINT: set it to the provider's "
            "OpenAI-compatible base URL (the one ending in /v1 or /openai)"
        )
    if not endpoint.startswith(("http://", "https://")):
        raise ConfigurationError(
            "LLM_ENDPOINT must be an http:// or https:// URL such as https://api.openai.com/v1 "
            "or http://localhost:11434/v1"
        )
    if not settings.llm_model.strip():
        raise ConfigurationError("LLM_MODEL is empty; set it, e.g. LLM_MODEL=gpt-4o-mini")

    from engramdb.providers.llm.openai_compatible import OpenAICompatibleLLM

    return OpenAICompatibleLLM(
        settings.llm_model.strip(),
        api_key=settings.llm_api_key,
        base_url=endpoint,
        timeout=settings.llm_timeout,
        max_retries=settings.llm_max_retries,
        max_concurrency=settings.llm_max_concurrency,
        cache=cache,
    )
