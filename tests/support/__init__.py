"""Test helpers shared across test suites (local fake servers, fixtures)."""
