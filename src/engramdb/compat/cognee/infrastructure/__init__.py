"""``cognee.infrastructure`` over engramdb: the engine objects cognee programs reach for
(``databases.graph.get_graph_engine``, ``llm.LLMGateway``, ``session.get_session_manager`` and
the config views), as thin adapters over engramdb's engine."""
