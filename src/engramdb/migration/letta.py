"""Letta (MemGPT) agent files (``.af``): core memory blocks, messages and archival passages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engramdb.migration.base import (
    DEFAULT_MAX_EXPORT_BYTES,
    ImportedRecord,
    MemorySource,
    drop_empty,
)

__all__ = ["LettaSource"]

#: The names Letta versions give each collection of an agent, in the order looked at.
_BLOCK_KEYS = ("core_memory", "blocks", "memory_blocks")
_MESSAGE_KEYS = ("messages", "in_context_messages", "message_history")
_PASSAGE_KEYS = ("archival_memory", "passages", "archival_passages")
#: Roles whose messages are not memories (the system prompt, tool call results).
_SKIPPED_ROLES = frozenset({"system", "tool"})
#: At most this many messages go into one message-batch document.
MESSAGES_PER_BATCH = 50


class LettaSource(MemorySource):
    """A Letta agent file (``.af`` JSON): an object with ``agents`` (and the shared ``blocks``
    they name by ``block_ids``), or a single agent at the top level; a path or the loaded JSON.

    Per agent: each non-empty core memory block becomes a document (``"<label>:\\n<value>"``),
    the user and assistant messages become message-batch documents (one per day of the
    conversation, at most :data:`MESSAGES_PER_BATCH` messages each, every line timestamped), and
    each archival passage a document. System and tool messages (the system prompt, tool results)
    are not memories and are left out. ``external_metadata`` keeps the ids (``agent_id``,
    ``agent_name``, ``block_id``/``label``/``limit``, passage ``id``) and ``created_at`` (a
    batch's first message). Agent files hold no graph, so ``"hybrid"`` is ``"re-derive"``.
    """

    source_system = "letta"
    export_name = "Letta agent file"

    def __init__(self, data: str | Path | dict[str, Any], mode: str = "re-derive") -> None:
        super().__init__(mode=mode)
        self._data = data

    def read(self, *, max_file_bytes: int = DEFAULT_MAX_EXPORT_BYTES) -> list[ImportedRecord]:
        raw = self._load(max_file_bytes)
        if not isinstance(raw, dict):
            raise self._fail("is not a JSON object", "pass a Letta agent file (.af)")
        if "agents" in raw:
            agents, where = self._objects(raw["agents"], "agents"), "agents"
        else:
            agents, where = [raw], ""
        shared = {
            str(block.get("id")): block
            for block in self._objects(raw.get("blocks") or [], "blocks")
            if block.get("id")
        }
        records: list[ImportedRecord] = []
        for index, agent in enumerate(agents):
            at = f"{where}[{index}]" if where else "the agent"
            records += self._agent(agent, at, shared)
        return records

    def _agent(
        self, agent: dict[str, Any], at: str, shared: dict[str, dict[str, Any]]
    ) -> list[ImportedRecord]:
        name = str(agent.get("name") or agent.get("id") or at)
        scope = drop_empty({"agent_id": agent.get("id"), "agent_name": agent.get("name")})
        key, blocks = self._collection(agent, _BLOCK_KEYS, at)
        if not blocks:
            ids = agent.get("block_ids") or agent.get("core_memory_block_ids") or []
            if not isinstance(ids, list):
                raise self._fail(f"{at}.block_ids is not a list", "export it again")
            missing = [str(i) for i in ids if str(i) not in shared]
            if missing:
                raise self._fail(
                    f"{at} names blocks {missing} that the file's 'blocks' does not hold",
                    "export the agent file again",
                )
            key, blocks = "blocks", [shared[str(i)] for i in ids]
        out = [
            record
            for i, block in enumerate(blocks)
            if (record := self._block(block, f"{at}.{key}[{i}]", name, scope))
        ]
        key, messages = self._collection(agent, _MESSAGE_KEYS, at)
        out += self._batches(messages, f"{at}.{key}", name, scope)
        key, passages = self._collection(agent, _PASSAGE_KEYS, at)
        for i, passage in enumerate(passages):
            here = f"{at}.{key}[{i}]"
            text = self._text(passage, ("text", "content"), here)
            if text is None or not text.strip():
                raise self._fail(f"{here} has no text", "each passage needs a 'text' string")
            out.append(
                ImportedRecord(
                    kind="passage",
                    external_id=str(passage.get("id") or f"{name}:passage:{i}"),
                    text=text.strip(),
                    metadata=drop_empty(
                        {**scope, "created_at": self._timestamp(passage, "created_at", here)}
                    ),
                )
            )
        return out

    def _block(
        self, block: dict[str, Any], here: str, agent: str, scope: dict[str, Any]
    ) -> ImportedRecord | None:
        value = self._text(block, ("value", "content"), here)
        if value is None or not value.strip():
            return None  # an empty block holds no memory
        label = str(block.get("label") or block.get("name") or here)
        return ImportedRecord(
            kind="memory_block",
            external_id=str(block.get("id") or f"{agent}:block:{label}"),
            text=f"{label}:\n{value.strip()}",
            metadata=drop_empty(
                {
                    **scope,
                    "block_id": block.get("id"),
                    "label": label,
                    "limit": block.get("limit"),
                    "created_at": self._timestamp(block, "created_at", here),
                }
            ),
        )

    def _batches(
        self, messages: list[dict[str, Any]], where: str, agent: str, scope: dict[str, Any]
    ) -> list[ImportedRecord]:
        """The agent's conversation as documents of one day (and at most a batch) each."""
        batches: list[list[tuple[str | None, str, str]]] = []
        day: str | None = None
        for i, message in enumerate(messages):
            here = f"{where}[{i}]"
            role = str(message.get("role") or "unknown")
            if role in _SKIPPED_ROLES:
                continue
            text = self._message_text(message, here)
            if not text.strip():
                continue  # a tool call or a reasoning step without words for the user
            when = self._timestamp(message, "created_at", here) or self._timestamp(
                message, "timestamp", here
            )
            today = when[:10] if when else day
            if not batches or today != day or len(batches[-1]) >= MESSAGES_PER_BATCH:
                batches.append([])
            day = today
            batches[-1].append((when, role, text.strip()))
        out: list[ImportedRecord] = []
        for number, batch in enumerate(batches):
            first = next((when for when, _, _ in batch if when), None)
            title = f"# Conversation with agent {agent}" + (f", {first[:10]}" if first else "")
            lines = [title] + [
                f"{role} [{when}]: {text}" if when else f"{role}: {text}"
                for when, role, text in batch
            ]
            out.append(
                ImportedRecord(
                    kind="messages",
                    external_id=f"{agent}:messages:{number}",
                    text="\n".join(lines),
                    metadata=drop_empty(
                        {
                            **scope,
                            "created_at": first,
                            "last_message_at": next(
                                (when for when, _, _ in reversed(batch) if when), None
                            ),
                            "message_count": len(batch),
                        }
                    ),
                )
            )
        return out

    def _message_text(self, message: dict[str, Any], here: str) -> str:
        """A message's words: ``content`` (a string or a list of typed parts) or ``text``."""
        content = message.get("content")
        if content is None:
            content = message.get("text")
        if content is None:
            return ""
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            parts = [
                part if isinstance(part, str) else part.get("text")
                for part in content
                if isinstance(part, str | dict)
            ]
            return "\n".join(p for p in parts if isinstance(p, str))
        raise self._fail(f"{here}.content is neither text nor a list of parts", "export it again")
