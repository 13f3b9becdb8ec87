"""recall(llm_config=...) takes cognee's LLMConfig object as well as a dict (recall.md)."""

from __future__ import annotations

from pydantic import BaseModel

import engramdb
from engramdb import SearchType
from tests.support.openai_server import OpenAIServer


class LLMConfig(BaseModel):
    """The shape of cognee's LLMConfig: every field present, most at their defaults."""

    llm_provider: str = "openai"
    llm_model: str = "test-chat"
    llm_endpoint: str = ""
    llm_api_key: str | None = None
    llm_temperature: float = 0.0
    structured_output_framework: str = "instructor"


async def test_an_llm_config_object_answers_one_recall(openai_server: OpenAIServer) -> None:
    openai_server.chat_text = "Owls hunt at night."
    await engramdb.remember("Owls hunt at night.", self_improvement=False)
    config = LLMConfig(llm_endpoint=openai_server.base_url, llm_api_key="test-key")
    (answer,) = await engramdb.recall(
        "When do owls hunt?", SearchType.RAG_COMPLETION, llm_config=config
    )
    assert answer.text == "Owls hunt at night."
    assert openai_server.requests_to("chat/completions")
    # the engine itself still has no LLM: the object set this call's only
    assert engramdb.config.get("llm_endpoint") in ("", None)
