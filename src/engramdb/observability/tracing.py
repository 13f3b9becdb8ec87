"""OpenTelemetry spans, when ``opentelemetry-api`` is installed (the ``otel`` extra).

engramdb only *creates* spans, through the API's global tracer provider; the application
chooses the SDK, the exporter and the sampling (``trace.set_tracer_provider(...)``). Without
the package, or with ``ENGRAMDB_TRACING_ENABLED=false``, :func:`span` yields None at the cost
of one check. Span names and attributes are listed in docs/observability.md; attributes carry
names, ids and counts only, never user content or secrets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from engramdb.observability.switch import tracing_on

__all__ = ["TRACER_NAME", "mark_error", "set_attributes", "span"]

#: The instrumentation scope of every engramdb span.
TRACER_NAME = "engramdb"

_UNSET: Any = object()
_tracer: Any = _UNSET

AttributeValue = str | bool | int | float


def _get_tracer() -> Any:
    global _tracer
    if _tracer is _UNSET:
        try:
            from opentelemetry import trace
        except ImportError:
            _tracer = None
        else:
            from engramdb import __version__

            # A proxy until the application installs a provider; it follows the provider then.
            _tracer = trace.get_tracer(TRACER_NAME, __version__)
    return _tracer


@contextmanager
def span(name: str, attributes: Mapping[str, AttributeValue | None] | None = None) -> Iterator[Any]:
    """A span named ``name`` around the block (the current span's child), or None when tracing
    is off. An exception leaving the block is recorded on the span and sets its status to
    ERROR. None-valued attributes are left out."""
    tracer = _get_tracer() if tracing_on() else None
    if tracer is None:
        yield None
        return
    attrs = {k: v for k, v in (attributes or {}).items() if v is not None}
    with tracer.start_as_current_span(name, attributes=attrs) as current:
        yield current


def set_attributes(current: Any, **attributes: AttributeValue | None) -> None:
    """Add attributes to a span from :func:`span` (nothing when it is None)."""
    if current is None:
        return
    for key, value in attributes.items():
        if value is not None:
            current.set_attribute(f"engramdb.{key}", value)


def mark_error(current: Any, description: str) -> None:
    """Set a span's status to ERROR without an exception leaving it (a recorded failure)."""
    if current is None:
        return
    from opentelemetry.trace import Status, StatusCode

    current.set_status(Status(StatusCode.ERROR, description))
