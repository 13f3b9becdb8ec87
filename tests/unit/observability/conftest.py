"""The OpenTelemetry SDK with an in-memory exporter, installed once per test process (the API
lets a process set its tracer provider only once); each test gets it emptied, and it keeps spans
only while a test that asked for it runs (the rest of the suite's spans are dropped)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.openai_server import openai_server

__all__ = ["openai_server", "spans"]

_exporter: Any = None


def _installed_exporter() -> Any:
    global _exporter
    if _exporter is None:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        class WhileRecording(InMemorySpanExporter):
            recording = False

            def export(self, spans: Any) -> SpanExportResult:
                if not self.recording:
                    return SpanExportResult.SUCCESS
                return super().export(spans)

        provider = trace.get_tracer_provider()
        if not isinstance(provider, TracerProvider):
            trace.set_tracer_provider(TracerProvider())
            provider = trace.get_tracer_provider()
        assert isinstance(provider, TracerProvider)
        _exporter = WhileRecording()
        provider.add_span_processor(SimpleSpanProcessor(_exporter))
    return _exporter


@pytest.fixture
def spans() -> Iterator[Any]:
    """The in-memory exporter, empty at the start of the test."""
    exporter = _installed_exporter()
    exporter.clear()
    exporter.recording = True
    try:
        yield exporter
    finally:
        exporter.recording = False
        exporter.clear()
