"""Framework integrations: engramdb as the memory of other agent frameworks.

Each is a submodule named after its framework (``engramdb.integrations.langgraph``,
``engramdb.integrations.langchain``, ...) behind the extra of the same name
(``pip install 'engramdb[langgraph]'``). A submodule imports its framework only when it is
imported itself, so ``import engramdb`` never needs one; without it the import error names the
extra to install.
"""
