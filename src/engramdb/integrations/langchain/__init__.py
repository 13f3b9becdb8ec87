"""LangChain on engramdb (``pip install 'engramdb[langchain]'``).

* :class:`EngramdbRetriever` - a ``BaseRetriever`` over ``recall()``: every search type, each
  result a ``Document`` with its dataset, ids, score and search type in ``metadata``.
* :class:`EngramdbChatMessageHistory` - a ``BaseChatMessageHistory`` kept in an engramdb session
  (``RunnableWithMessageHistory(..., get_session_history=...)``).
"""

try:
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "engramdb.integrations.langchain needs langchain-core: pip install 'engramdb[langchain]'"
    ) from exc

from engramdb.integrations.langchain.chat_history import EngramdbChatMessageHistory
from engramdb.integrations.langchain.retriever import EngramdbRetriever, documents_from_results

__all__ = ["EngramdbChatMessageHistory", "EngramdbRetriever", "documents_from_results"]
