"""Whether metrics and tracing are on: ``ENGRAMDB_METRICS_ENABLED`` / ``ENGRAMDB_TRACING_ENABLED``
of :data:`engramdb.config`, read again only when the settings change (``config.generation``),
so the check on every call is one integer comparison."""

from __future__ import annotations

from typing import Any

__all__ = ["metrics_on", "tracing_on"]

_cache: list[int | bool] = [-1, False, False]
#: :data:`engramdb.settings.config`, imported on first use (not on every check).
_config: Any = None


def _refresh() -> None:
    global _config
    if _config is None:
        from engramdb.settings import config

        _config = config
    generation = _config.generation
    if _cache[0] != generation:
        settings = _config.settings
        _cache[:] = [
            generation,
            settings.engramdb_metrics_enabled,
            settings.engramdb_tracing_enabled,
        ]


def metrics_on() -> bool:
    """True when metrics are to be recorded (the backend may still be absent)."""
    _refresh()
    return bool(_cache[1])


def tracing_on() -> bool:
    """True when spans are to be opened (the backend may still be absent)."""
    _refresh()
    return bool(_cache[2])
