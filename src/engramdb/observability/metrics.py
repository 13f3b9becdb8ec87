"""Prometheus metrics, when ``prometheus-client`` is installed (the ``metrics`` extra; the
``server`` extra includes it).

The metrics live in engramdb's own registry (:func:`registry`), not the client's global one, so
an application that has its own metrics keeps them apart; ``GET /metrics`` on the REST server
serves this registry (:func:`exposition`). The recording functions below are what the
instrumented places call; each is a no-op when the package is absent or
``ENGRAMDB_METRICS_ENABLED=false``. Labels are verb, route template, stage and model names:
never a dataset, a user or any content (their number stays small).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

from engramdb.observability.switch import metrics_on

__all__ = [
    "background_finished",
    "background_started",
    "count_ingest",
    "count_llm_call",
    "exposition",
    "observe_http",
    "observe_stage",
    "observe_verb",
    "registry",
]

#: Background runs in flight, by kind (kept even while metrics are off, so the gauge never
#: drifts when they are switched on between a run's start and its end).
_background: Counter[str] = Counter()
#: Runs start and end on any thread's loop (the REST server's, the caller's).
_background_lock = threading.Lock()

_UNSET: Any = object()
_metrics: Any = _UNSET


class _Metrics:
    """Every engramdb metric, in one registry (created once, on first use)."""

    def __init__(self) -> None:
        import prometheus_client as prom

        self.registry = prom.CollectorRegistry()
        reg = self.registry
        self.http_requests = prom.Counter(
            "engramdb_http_requests",
            "REST requests answered, by method, route template and status code.",
            ["method", "route", "status"],
            registry=reg,
        )
        self.http_duration = prom.Histogram(
            "engramdb_http_request_duration_seconds",
            "REST request latency (until the response is sent), by method and route template.",
            ["method", "route"],
            registry=reg,
        )
        self.verb_duration = prom.Histogram(
            "engramdb_verb_duration_seconds",
            "Verb latency in the process that runs it (SDK, REST, MCP), by verb and outcome.",
            ["verb", "outcome"],
            registry=reg,
        )
        self.stage_duration = prom.Histogram(
            "engramdb_improve_stage_duration_seconds",
            "improve stage latency, by stage and status (stages that ran).",
            ["stage", "status"],
            registry=reg,
        )
        self.llm_calls = prom.Counter(
            "engramdb_llm_calls",
            "LLM chat completions answered, by model.",
            ["model"],
            registry=reg,
        )
        self.llm_tokens = prom.Counter(
            "engramdb_llm_tokens",
            "LLM tokens the provider reported, by model and kind (prompt or completion).",
            ["model", "kind"],
            registry=reg,
        )
        self.ingested = prom.Counter(
            "engramdb_ingested",
            "Ingested units written (kind: documents or chunks); rate() is the throughput.",
            ["kind"],
            registry=reg,
        )
        reg.register(_BackgroundCollector())
        #: (metric, label values) -> its child: ``labels()`` validates and locks on every call,
        #: a dict lookup does not (label values are few: verbs, routes, stages, models).
        self._children: dict[tuple[Any, tuple[str, ...]], Any] = {}

    def child(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, created once per label values."""
        key = (metric, labels)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*labels)
        return found


class _BackgroundCollector:
    """``engramdb_background_runs``: the gauge read from :data:`_background` at scrape time."""

    def collect(self) -> Any:
        from prometheus_client.core import GaugeMetricFamily

        family = GaugeMetricFamily(
            "engramdb_background_runs",
            "Background runs in flight (queue depth), by kind (remember, improve, cognify...).",
            labels=["kind"],
        )
        with _background_lock:
            counts = sorted(_background.items())
        for kind, count in counts:
            family.add_metric([kind], count)
        yield family

    def describe(self) -> Any:
        return []


def _get() -> _Metrics | None:
    """The metrics, or None when off or the package is absent."""
    global _metrics
    if not metrics_on():
        return None
    if _metrics is _UNSET:
        try:
            _metrics = _Metrics()
        except ImportError:
            _metrics = None
    result: _Metrics | None = _metrics
    return result


def registry() -> Any:
    """engramdb's ``prometheus_client.CollectorRegistry`` (None without the package or when
    metrics are off)."""
    metrics = _get()
    return None if metrics is None else metrics.registry


def exposition() -> tuple[bytes, str] | None:
    """The registry in the Prometheus text format, and its content type (None when off)."""
    metrics = _get()
    if metrics is None:
        return None
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    return generate_latest(metrics.registry), CONTENT_TYPE_LATEST


def observe_verb(verb: str, seconds: float, outcome: str) -> None:
    if (m := _get()) is not None:
        m.child(m.verb_duration, verb, outcome).observe(seconds)


def observe_http(method: str, route: str, status: int, seconds: float) -> None:
    if (m := _get()) is not None:
        m.child(m.http_requests, method, route, str(status)).inc()
        m.child(m.http_duration, method, route).observe(seconds)


def observe_stage(stage: str, status: str, seconds: float) -> None:
    if (m := _get()) is not None:
        m.child(m.stage_duration, stage, status).observe(seconds)


def count_llm_call(model: str, prompt_tokens: int, completion_tokens: int) -> None:
    if (m := _get()) is not None:
        m.child(m.llm_calls, model).inc()
        m.child(m.llm_tokens, model, "prompt").inc(prompt_tokens)
        m.child(m.llm_tokens, model, "completion").inc(completion_tokens)


def count_ingest(documents: int, chunks: int) -> None:
    if (m := _get()) is not None:
        m.child(m.ingested, "documents").inc(documents)
        m.child(m.ingested, "chunks").inc(chunks)


def background_started(kind: str) -> None:
    with _background_lock:
        _background[kind] += 1


def background_finished(kind: str) -> None:
    with _background_lock:
        _background[kind] -= 1
        if _background[kind] <= 0:
            del _background[kind]
