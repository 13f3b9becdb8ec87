"""EngramdbRetriever and EngramdbChatMessageHistory on PostgreSQL: the same cases as on the
embedded store."""

from __future__ import annotations

import pytest

from tests.unit.integrations.test_langchain import (
    history,
    remembered,
    retriever,
    test_a_turn_is_one_session_qa_entry,
    test_async_methods_and_clear,
    test_chunks_become_documents_with_provenance,
    test_recall_turns_read_back_as_messages,
    test_rich_messages_round_trip_exactly,
)

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("postgres_storage")]

__all__ = [
    "history",
    "remembered",
    "retriever",
    "test_a_turn_is_one_session_qa_entry",
    "test_async_methods_and_clear",
    "test_chunks_become_documents_with_provenance",
    "test_recall_turns_read_back_as_messages",
    "test_rich_messages_round_trip_exactly",
]
