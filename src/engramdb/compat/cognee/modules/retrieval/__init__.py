"""``cognee.modules.retrieval`` over engramdb (only :mod:`.code_retriever`)."""
