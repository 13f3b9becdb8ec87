"""``EngramdbChatMessageHistory``: LangChain chat history kept in an engramdb session.

::

    from engramdb.integrations.langchain import EngramdbChatMessageHistory

    history = EngramdbChatMessageHistory("chat-1")
    history.add_messages([HumanMessage("Hi, I'm Ada"), AIMessage("Hello Ada!")])
    history.messages        # [HumanMessage('Hi, I'm Ada'), AIMessage('Hello Ada!')]
    history.clear()         # deletes the session

Each ``add_messages`` call stores its messages as session Q&A entries, in order: a human
message followed by an AI message is one entry (question, answer), so the turns are what
engramdb's session features see (``recall(..., session_id=...)`` context, feedback,
``improve(session_ids=...)``). A message of another kind (system, tool), a lone one, or one
carrying more than its text (ids, tool calls, metadata) is kept exactly: the entry's
``context`` holds the LangChain serialisation of its messages. Turns that
``recall(..., session_id=...)`` recorded in the same session read back as a human question
and an AI answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    messages_from_dict,
    messages_to_dict,
)

from engramdb.engine import Engine
from engramdb.integrations._loop import LoopThread
from engramdb.models.records import User
from engramdb.models.results import ResponseQAEntry
from engramdb.sessions.validation import validate_session_id

__all__ = ["EngramdbChatMessageHistory"]

#: The key of an entry's JSON ``context`` that holds its serialised messages.
_MESSAGES_KEY = "langchain_messages"


class EngramdbChatMessageHistory(BaseChatMessageHistory):
    """The messages of one engramdb session (see the module docstring).

    ``engine``: the Engine holding the session (driven from this object's loop thread; on
    PostgreSQL give it an engine of its own); None
    opens one on ``data_dir`` (default ENGRAMDB_DATA_DIR), closed by :meth:`close`. ``user``:
    the session's owner (default user otherwise).
    """

    def __init__(
        self,
        session_id: str,
        *,
        engine: Engine | None = None,
        data_dir: str | Path | None = None,
        user: User | None = None,
    ) -> None:
        self.session_id = validate_session_id(session_id)
        self._owns_engine = engine is None
        self._engine = engine if engine is not None else Engine(data_dir=data_dir)
        self._user = user
        self._loop = LoopThread("engramdb-chat-history")

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return self._loop.run(self._messages())

    async def aget_messages(self) -> list[BaseMessage]:
        return await self._loop.arun(self._messages())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self._loop.run(self._add(list(messages)))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await self._loop.arun(self._add(list(messages)))

    def clear(self) -> None:
        self._loop.run(self._clear())

    async def aclear(self) -> None:
        await self._loop.arun(self._clear())

    def close(self) -> None:
        """Close the engine this history opened and stop its loop (idempotent)."""
        if self._owns_engine and not self._engine.closed:
            self._loop.run(self._engine.close())
        self._loop.stop()

    def __enter__(self) -> EngramdbChatMessageHistory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- on the loop --------------------------------------------------------------------

    async def _messages(self) -> list[BaseMessage]:
        entries = await self._engine.session.get_session(self.session_id, user=self._user)
        out: list[BaseMessage] = []
        for entry in entries:
            out.extend(_entry_messages(entry))
        return out

    async def _add(self, messages: list[BaseMessage]) -> None:
        for group in _turns(messages):
            human = next((m.text for m in group if isinstance(m, HumanMessage)), "")
            ai = next((m.text for m in group if isinstance(m, AIMessage)), "")
            if not human and not ai:
                human = group[0].text
            context = "" if _plain_turn(group) else _serialised(group)
            await self._engine.session.add_qa(
                self.session_id, human, ai, context=context, user=self._user
            )

    async def _clear(self) -> None:
        await self._engine.session.delete_session(self.session_id, user=self._user)


def _turns(messages: list[BaseMessage]) -> list[list[BaseMessage]]:
    """Messages grouped into entries: a human message with the AI message right after it."""
    groups: list[list[BaseMessage]] = []
    i = 0
    while i < len(messages):
        current = messages[i]
        following = messages[i + 1] if i + 1 < len(messages) else None
        if isinstance(current, HumanMessage) and isinstance(following, AIMessage):
            groups.append([current, following])
            i += 2
        else:
            groups.append([current])
            i += 1
    return groups


def _plain_turn(group: list[BaseMessage]) -> bool:
    """Whether the entry's question and answer alone rebuild ``group`` exactly."""
    if len(group) != 2 or not all(isinstance(m.content, str) for m in group):
        return False
    human, ai = group
    return human == HumanMessage(content=human.content) and ai == AIMessage(content=ai.content)


def _serialised(group: list[BaseMessage]) -> str:
    return json.dumps({_MESSAGES_KEY: messages_to_dict(group)}, ensure_ascii=False)


def _entry_messages(entry: ResponseQAEntry) -> list[BaseMessage]:
    if entry.context.startswith("{"):
        try:
            held = json.loads(entry.context)
        except json.JSONDecodeError:
            held = None
        if isinstance(held, dict) and isinstance(held.get(_MESSAGES_KEY), list):
            return list(messages_from_dict(held[_MESSAGES_KEY]))
    out: list[BaseMessage] = []
    if entry.question:
        out.append(HumanMessage(content=entry.question))
    if entry.answer:
        out.append(AIMessage(content=entry.answer))
    return out
