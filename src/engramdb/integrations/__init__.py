"""Framework integrations: engramdb as the memory of other agent frameworks.

Each lives in its own submodule behind an extra that names the framework, and imports the
framework only when the submodule is imported (``import engramdb`` never needs them):

* ``engramdb.integrations.langgraph`` - ``EngramdbStore``, a LangGraph long-term memory store
  (``pip install 'engramdb[langgraph]'``).
* ``engramdb.integrations.langchain`` - ``EngramdbRetriever`` and ``EngramdbChatMessageHistory``
  (``pip install 'engramdb[langchain]'``).
"""
