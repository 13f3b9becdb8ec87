"""LLM providers: chat completion and validated structured output.

Importing this package is cheap: the ``openai`` SDK is imported only when a request is first
made. Use :func:`build_llm` to get the configured LLM (or None when none is configured).
"""

from engramdb.providers.llm.base import (
    LLM,
    CallStats,
    ChatMessage,
    Completion,
    ResponseCache,
)
from engramdb.providers.llm.cache import StoreResponseCache, cache_key
from engramdb.providers.llm.factory import build_llm
from engramdb.providers.llm.openai_compatible import OpenAICompatibleLLM

__all__ = [
    "LLM",
    "CallStats",
    "ChatMessage",
    "Completion",
    "OpenAICompatibleLLM",
    "ResponseCache",
    "StoreResponseCache",
    "build_llm",
    "cache_key",
]
