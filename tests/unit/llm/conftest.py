"""Fixtures for LLM tests. The OpenAI test server fixture is re-exported here so these tests work
whether or not the top-level conftest registers tests.support.openai_server as a plugin."""

from tests.support.openai_server import openai_server

__all__ = ["openai_server"]
