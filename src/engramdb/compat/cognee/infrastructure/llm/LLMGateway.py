"""``cognee.infrastructure.llm.LLMGateway``: one LLM call from a program, over engramdb's LLM.

``await LLMGateway.acreate_structured_output(text, system_prompt, MyModel)`` sends the system
prompt and the text to the configured LLM (LLM_ENDPOINT / LLM_API_KEY / LLM_MODEL) and returns
a validated ``MyModel``; ``response_model=str`` returns the plain answer. DataPoints in the
answer get their class's own ``id`` (from its ``Dedup`` fields, else a new one), ``metadata`` and
``type``, whatever the model wrote there. It is the same client
engramdb's own extraction and answers use (retries, concurrency limit, error classes), without
the response cache: a program's direct call is never answered from another call's entry.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

from pydantic import BaseModel

from engramdb.errors import FeatureNotAvailableError, LLMNotConfiguredError
from engramdb.extract.schema import reset_bookkeeping

__all__ = ["LLMGateway"]

T = TypeVar("T")

#: Keyword arguments a call may pass, with the LLM client option each one sets.
_OPTIONS = {
    "temperature": "temperature",
    "max_tokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
}


class LLMGateway:
    """cognee's namespace of LLM functions (static methods; never instantiated)."""

    @staticmethod
    async def acreate_structured_output(
        text_input: str, system_prompt: str, response_model: type[T], **kwargs: Any
    ) -> T:
        """The configured LLM's answer to ``text_input`` under ``system_prompt``, as an instance
        of ``response_model`` (a pydantic model) or as text (``response_model=str``).

        Raises LLMNotConfiguredError when no LLM is configured, LLMOutputError when the answer
        does not fit the model, and the other LLMProviderError classes as every LLM call does.
        ``temperature`` and ``max_tokens`` (or ``max_completion_tokens``) are honoured; other
        keyword arguments are refused with FeatureNotAvailableError."""
        from engramdb.engine import get_engine

        options: dict[str, Any] = {}
        for key, value in kwargs.items():
            if key not in _OPTIONS:
                raise FeatureNotAvailableError(
                    f"LLMGateway.acreate_structured_output({key}=...) is not supported; engramdb "
                    "accepts temperature and max_tokens (configure the model with LLM_MODEL)"
                )
            options[_OPTIONS[key]] = value
        llm = get_engine().llm
        if llm is None:
            raise LLMNotConfiguredError(
                "LLMGateway.acreate_structured_output needs an LLM and none is configured: set "
                "LLM_API_KEY (and LLM_ENDPOINT / LLM_MODEL for a non-OpenAI server such as "
                "Ollama or a local OpenAI-compatible server)"
            )
        from engramdb.agent_context import get_current_agent_memory_context

        memory = get_current_agent_memory_context()
        if memory is not None and memory.memory_context:  # inside an @agent_memory call
            text_input = (
                f"Additional Memory Context:\n{memory.memory_context}\n\n"
                f"Original Input:\n{text_input}"
            )
        messages: list[Any] = [
            {"role": "system", "content": system_prompt},
            {"role": "user", "content": text_input},
        ]
        if response_model is str:
            return cast(T, (await llm.complete(messages, **options)).text)
        if not (isinstance(response_model, type) and issubclass(response_model, BaseModel)):
            raise TypeError(
                "response_model must be a pydantic BaseModel subclass or str, got "
                f"{response_model!r}"
            )
        parsed, _ = await llm.structured(messages, response_model, cache=False, **options)
        reset_bookkeeping(parsed)  # DataPoints keep their class's id, metadata and type
        return cast(T, parsed)

    @staticmethod
    def supports_answer_streaming() -> bool:
        """False: engramdb's completions are returned whole."""
        return False

    @staticmethod
    async def create_transcript(input: Any, **kwargs: Any) -> Any:
        raise FeatureNotAvailableError(
            "LLMGateway.create_transcript (audio transcription) is not supported: engramdb "
            "does not ship speech models; transcribe the audio yourself and remember() the text"
        )

    @staticmethod
    async def transcribe_image(input: Any, *args: Any, **kwargs: Any) -> Any:
        raise FeatureNotAvailableError(
            "LLMGateway.transcribe_image is not supported: engramdb does not call vision "
            "models; extract the image's text yourself and remember() it"
        )
