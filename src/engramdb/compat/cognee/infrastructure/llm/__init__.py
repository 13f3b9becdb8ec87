"""``cognee.infrastructure.llm``: ``LLMGateway`` and ``get_llm_config``."""

from engramdb.compat.cognee.infrastructure.config_views import get_llm_config
from engramdb.compat.cognee.infrastructure.llm.LLMGateway import LLMGateway

__all__ = ["LLMGateway", "get_llm_config"]
