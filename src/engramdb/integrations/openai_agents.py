"""engramdb for the OpenAI Agents SDK: a durable ``Session`` and remember/recall tools.

Needs the ``openai-agents`` extra (``pip install 'engramdb[openai-agents]'``).

* :class:`EngramdbSession` implements the SDK's ``Session`` protocol
  (``Runner.run(agent, text, session=EngramdbSession("chat-1"))``): the conversation's items are
  kept in the engramdb session of that id, one Q&A entry per item, so they survive restarts, are
  one user's own, and show in ``recall(..., session_id=...)`` and ``session.get_session``.
* :func:`remember_tool` / :func:`recall_tool` (both at once: :func:`memory_tools`) are
  ``FunctionTool`` objects named ``remember`` and ``recall`` that let the agent store a fact in
  a dataset and look facts up again.

Everything takes ``engine=`` (an :class:`engramdb.Engine`; default: the module-level memory,
which also serves remote mode) and ``user=`` (whose sessions and datasets are used).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

try:
    from agents import FunctionTool, function_tool
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "engramdb.integrations.openai_agents needs the OpenAI Agents SDK: "
        "pip install 'engramdb[openai-agents]'"
    ) from exc

import engramdb
from engramdb.errors import DatasetNotFoundError, EngramValidationError, RecallPreconditionError
from engramdb.models.requests.common import search_type_from_name
from engramdb.models.results import (
    ResponseAgentTraceEntry,
    ResponseMarkerEntry,
    ResponseQAEntry,
    ResponseSessionContextEntry,
)
from engramdb.models.search_type import SearchType
from engramdb.sessions.validation import validate_session_id

__all__ = [
    "DEFAULT_DATASET",
    "ITEM_PREFIX",
    "EngramdbSession",
    "memory_tools",
    "recall_tool",
    "remember_tool",
]

#: The dataset the tools remember into and recall from unless told otherwise.
DEFAULT_DATASET = "agent_memory"

#: How a session entry that holds an SDK item starts its ``context`` (the item's JSON follows).
ITEM_PREFIX = "openai-agents item\n"
#: How the entry that records a ``pop_item`` starts its ``context`` (the popped entry id follows).
POP_PREFIX = "openai-agents pop\n"


def _target(engine: engramdb.Engine | None) -> Any:
    """What the verbs are called on: the given engine, or the module (current memory/remote)."""
    return engine if engine is not None else engramdb


def _item_text(item: TResponseInputItem) -> str:
    """The readable text of a message item ("" for tool calls, reasoning and other items)."""
    if not isinstance(item, dict) or item.get("type", "message") != "message":
        return ""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def _result_text(result: Any) -> str:
    """What the model reads of one recall result ("" for a warm-up or failure marker)."""
    if isinstance(result, ResponseMarkerEntry):
        return ""
    if isinstance(result, ResponseQAEntry):
        return result.answer or result.question
    if isinstance(result, ResponseAgentTraceEntry):
        return result.session_feedback or result.origin_function
    if isinstance(result, ResponseSessionContextEntry):
        return result.content
    return str(getattr(result, "text", ""))


class EngramdbSession:
    """Conversation history of the Agents SDK kept in an engramdb session.

    ``session_id`` names the engramdb session (of ``user``; another user's session of the same
    id is a different one). Each item becomes one Q&A entry of it: a user message's text as the
    question, any other message's text as the answer (tool calls and other items have neither),
    and the item itself, as JSON, in the entry's ``context`` after :data:`ITEM_PREFIX` —
    ``get_items`` returns exactly the dicts that were added, in the order they were added.

    * ``get_items(limit)``: all items, oldest first; with ``limit`` the latest ``limit`` of them
      (still oldest first; 0 or less gives []). Without ``limit``, ``session_settings.limit``
      applies.
    * ``pop_item()``: removes and returns the newest item (None when there is none). The
      removal is an entry that hides the item: entries are never rewritten.
    * ``clear_session()``: deletes the engramdb session with everything in it (its items and
      any recall turns, notes, traces and feedback recorded under the same id).

    Entries of the session that are not items (a ``recall(..., session_id=...)`` turn, a note)
    are kept and ignored here. Concurrent calls on one instance are serialised; two processes
    popping the same session at the same moment may both return the same item.
    """

    session_settings: SessionSettings | None

    def __init__(
        self,
        session_id: str,
        *,
        user: Any = None,
        engine: engramdb.Engine | None = None,
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.session_id = validate_session_id(session_id)
        self.session_settings = (
            session_settings if session_settings is not None else SessionSettings()
        )
        self._user = user
        self._engine = engine
        self._lock = asyncio.Lock()

    def _options(self) -> dict[str, Any]:
        return {"user": self._user} if self._user is not None else {}

    async def _live(self, want: int | None = None) -> list[tuple[str, TResponseInputItem]]:
        """The items not popped, oldest first, each with the id of the entry holding it: all of
        them, or (``want``) at least the latest ``want`` when there are that many.

        A pop hides the newest item at the time, so its entry comes after the item's: the
        latest N entries alone tell which of THEIR items are live. With ``want`` the window
        grows (doubling) until it holds ``want`` live items or the whole session."""
        window = None if want is None else max(2 * want, 16)
        while True:
            options = self._options() if window is None else {**self._options(), "last_n": window}
            entries: list[ResponseQAEntry] = await _target(self._engine).session.get_session(
                self.session_id, **options
            )
            live: dict[str, TResponseInputItem] = {}
            for entry in entries:
                if entry.context.startswith(ITEM_PREFIX):
                    live[entry.qa_id] = json.loads(entry.context[len(ITEM_PREFIX) :])
                elif entry.context.startswith(POP_PREFIX):
                    live.pop(entry.context[len(POP_PREFIX) :].strip(), None)
            if window is None or want is None or len(live) >= want or len(entries) < window:
                return list(live.items())  # dicts keep insertion (= store) order
            window *= 2

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise EngramValidationError(f"limit must be an integer or None, got {limit!r}")
        if limit is not None and limit <= 0:
            return []
        async with self._lock:
            items = [item for _, item in await self._live(limit)]
        return items if limit is None else items[-limit:]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        if not items:
            return
        encoded = [(item, json.dumps(item, ensure_ascii=False)) for item in items]
        target = _target(self._engine)
        async with self._lock:
            for item, document in encoded:
                text = _item_text(item)
                is_user = isinstance(item, dict) and item.get("role") == "user"
                await target.session.add_qa(
                    self.session_id,
                    text if is_user else "",
                    "" if is_user else text,
                    context=ITEM_PREFIX + document,
                    **self._options(),
                )

    async def pop_item(self) -> TResponseInputItem | None:
        async with self._lock:
            live = await self._live(1)
            if not live:
                return None
            entry_id, item = live[-1]
            await _target(self._engine).session.add_qa(
                self.session_id, "", "", context=POP_PREFIX + entry_id, **self._options()
            )
        return item

    async def clear_session(self) -> None:
        async with self._lock:
            await _target(self._engine).session.delete_session(self.session_id, **self._options())


def remember_tool(
    *,
    dataset_name: str = DEFAULT_DATASET,
    user: Any = None,
    engine: engramdb.Engine | None = None,
    remember_options: dict[str, Any] | None = None,
    name: str = "remember",
) -> FunctionTool:
    """A tool the agent calls with one ``fact`` to store it in ``dataset_name`` (``remember``).

    The model sees "Remembered." (or "Already remembered." for a fact the dataset holds
    already); ``remember_options`` are further ``remember`` options (``node_set``, ...).
    """
    options: dict[str, Any] = {**({"user": user} if user is not None else {})}
    options.update(remember_options or {})

    async def remember(fact: str) -> str:
        """Store a fact in long-term memory so it can be recalled in later conversations.

        Args:
            fact: The fact to remember, as one self-contained sentence.
        """
        result = await _target(engine).remember(fact, dataset_name, **options)
        if result.items and all(i.reason == "already_present" for i in result.items):
            return "Already remembered."
        return "Remembered."

    return function_tool(remember, name_override=name)


def recall_tool(
    *,
    datasets: Sequence[str] | None = (DEFAULT_DATASET,),
    search_type: SearchType | str | None = SearchType.CHUNKS,
    top_k: int = 5,
    user: Any = None,
    engine: engramdb.Engine | None = None,
    recall_options: dict[str, Any] | None = None,
    name: str = "recall",
) -> FunctionTool:
    """A tool the agent calls with a ``query`` to look facts up (``recall``).

    The model sees the results' texts as a numbered list, best first, or "Nothing relevant is
    remembered." ``datasets=None`` searches every dataset the user may read; ``search_type``
    picks the search (default ``CHUNKS``: the remembered passages); ``recall_options`` are
    further ``recall`` options (``node_name``, ``session_id``, ...).
    """
    options: dict[str, Any] = {"top_k": top_k}
    if datasets is not None:
        options["datasets"] = list(datasets)
    if user is not None:
        options["user"] = user
    options.update(recall_options or {})
    try:
        query_type = search_type_from_name(search_type)
    except ValueError as exc:
        raise EngramValidationError(str(exc)) from None

    async def recall(query: str) -> str:
        """Look up facts in long-term memory.

        Args:
            query: What to look for, e.g. a question or a few keywords.
        """
        try:
            results = await _target(engine).recall(query, query_type, **options)
        except (DatasetNotFoundError, RecallPreconditionError):  # nothing remembered yet
            return "Nothing relevant is remembered."
        texts = [text for text in map(_result_text, results) if text]
        if not texts:
            return "Nothing relevant is remembered."
        return "\n".join(f"{i}. {text}" for i, text in enumerate(texts, 1))

    return function_tool(recall, name_override=name)


def memory_tools(
    *,
    dataset_name: str = DEFAULT_DATASET,
    user: Any = None,
    engine: engramdb.Engine | None = None,
    top_k: int = 5,
) -> list[FunctionTool]:
    """``[remember_tool(...), recall_tool(...)]`` sharing one dataset: what the agent remembers
    it can recall."""
    return [
        remember_tool(dataset_name=dataset_name, user=user, engine=engine),
        recall_tool(datasets=[dataset_name], top_k=top_k, user=user, engine=engine),
    ]
