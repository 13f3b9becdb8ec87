"""Observability: OpenTelemetry spans, Prometheus metrics and JSON logs (docs/observability.md).

Each fact is recorded at the one place every call already passes through, never in a verb:

* :class:`engramdb.verbs.spec.Verb` hands out its handler wrapped by :func:`instrument_verb`
  (a span and a latency histogram per verb call, the ``verb``/``dataset_id`` log context);
* the improve runner, the ingest pipeline, the LLM client and ``Engine.spawn`` call the small
  recording functions of :mod:`engramdb.observability.metrics` and open spans with
  :func:`engramdb.observability.tracing.span`.

Both backends are optional: without ``opentelemetry-api`` (the ``otel`` extra) a span is a cheap
no-op, without ``prometheus-client`` (the ``metrics`` extra, part of ``server``) nothing is
counted. ``ENGRAMDB_TRACING_ENABLED`` / ``ENGRAMDB_METRICS_ENABLED`` switch them off at run time.
"""

from __future__ import annotations

from engramdb.observability.context import log_context
from engramdb.observability.instrument import instrument_verb
from engramdb.observability.logs import JsonFormatter, configure_logging
from engramdb.observability.tracing import span

__all__ = ["JsonFormatter", "configure_logging", "instrument_verb", "log_context", "span"]
