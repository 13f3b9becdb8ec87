"""``cognee.infrastructure.llm.config``: ``get_llm_config``."""

from engramdb.compat.cognee.infrastructure.config_views import LLMConfig, get_llm_config

__all__ = ["LLMConfig", "get_llm_config"]
