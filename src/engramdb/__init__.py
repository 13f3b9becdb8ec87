"""engramdb: persistent memory for AI agents."""
