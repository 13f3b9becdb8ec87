"""Graph extraction: entities, relations and summaries from chunks (LLM or offline)."""
