"""``cognee.infrastructure.databases``: graph, relational, vector and cache (session) views of
engramdb's one store."""
