"""Adapters that plug engramdb into agent frameworks, each behind an extra naming its framework."""
