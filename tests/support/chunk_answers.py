"""A model stand-in for graph extraction that answers every chunk of a batch on its own.

``chunk_answers(server)`` is a ``chat/completions`` handler for
:class:`~tests.support.openai_server.OpenAIServer`: an extraction request (its user message holds
``<chunk id="N">`` blocks) gets, per chunk, the capitalised words of that chunk as entities, the
first of them related to each other one (``related_to``), and the chunk's first sentence as its
summary — an answer that depends on each chunk alone, not on which chunks share the call. Any
other request (the conflict review, completions) gets :func:`~.schema_answers.answer_chat`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from tests.support.openai_server import OpenAIServer, RecordedRequest, Reply
from tests.support.schema_answers import answer_chat

__all__ = ["chunk_answers", "is_extraction", "is_review"]

_CHUNK = re.compile(r'<chunk id="(\d+)">\n(.*?)\n</chunk>', re.S)
_NAME = re.compile(r"\b[A-Z][a-z]+\d*\b")


def _user(request: RecordedRequest) -> str:
    body = request.json if isinstance(request.json, dict) else {}
    return next(
        (str(m.get("content", "")) for m in body.get("messages") or [] if m.get("role") == "user"),
        "",
    )


def is_extraction(request: RecordedRequest) -> bool:
    return "<chunk id=" in _user(request)


def is_review(request: RecordedRequest) -> bool:
    body = request.json if isinstance(request.json, dict) else {}
    fmt = body.get("response_format") or {}
    return "_Review" in str((fmt.get("json_schema") or {}).get("name", ""))


def _chunk(chunk_id: str, text: str) -> dict[str, object]:
    names = list(dict.fromkeys(_NAME.findall(text)))
    return {
        "id": int(chunk_id),
        "summary": text.split(".")[0] + ".",
        "entities": [{"name": n, "type": "CONCEPT", "description": ""} for n in names],
        "relations": [
            {"source": names[0], "relation": "related_to", "target": n} for n in names[1:]
        ],
    }


def chunk_answers(server: OpenAIServer) -> Callable[[RecordedRequest], Reply]:
    def handle(request: RecordedRequest) -> Reply:
        if not is_extraction(request):
            return answer_chat(request)
        chunks = [_chunk(i, text) for i, text in _CHUNK.findall(_user(request))]
        return Reply.json(server.chat_document(json.dumps({"chunks": chunks})))

    return handle
