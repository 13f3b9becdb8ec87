"""Typed domain models shared by the store, the verbs and the public API."""
