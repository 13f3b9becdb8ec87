"""SQLite-specific storage tests and the in-memory vector index tests."""
