"""What metrics and tracing cost recall: p50 with both on vs both off, in the same run.

Run from the repository root (needs the ``server``, ``metrics`` and ``otel`` extras and
``opentelemetry-sdk``; ``.[dev]`` has them all)::

    .venv/bin/python bench/metrics_overhead.py                    # fake embedder, 200 documents
    .venv/bin/python bench/metrics_overhead.py --embedder onnx --queries 300

"On" is what a deployment that watches engramdb runs: ``ENGRAMDB_METRICS_ENABLED=true`` with
prometheus-client recording, and ``ENGRAMDB_TRACING_ENABLED=true`` with the OpenTelemetry SDK
installed (a ``TracerProvider`` whose exporter drops the spans, so the figure is engramdb's
cost, not an exporter's; ``--processor simple`` (default) exports in the calling thread,
``--processor batch`` uses the SDK's ``BatchSpanProcessor`` and its worker thread, whose GIL
contention is then measured too). ``--what metrics`` / ``--what tracing`` switch one only.
"Off" switches both settings off. The two alternate (on/off, then off/on...; by default every
query) on the same engine and data, so drift and other load hit both alike.

1. **In-process**: ``engine.recall(q, CHUNKS)`` on an ``Engine``.
2. **HTTP**: ``POST /api/v1/recall`` against the REST app served by uvicorn on 127.0.0.1 in a
   thread of this process (the request middleware counts too), through one keep-alive client.

3. **Per call**: what the instrumentation itself adds to one verb call (a handler that does
   nothing, wrapped vs bare), in CPU microseconds (``time.process_time``: waiting for a core
   does not count), and its share of each off CPU p50. Unlike the ratios it hardly moves with
   other load on the machine.

Wall-clock p50 moves with whatever else the machine runs. So that a loaded machine still gives
a figure, each row also reports the **CPU time per recall** (``time.process_time``: every
thread of this process, so the uvicorn thread and any worker thread count; time spent waiting
for a core does not), its median on and off and their ratio. ``--instructions`` adds the most
load-proof figure: **instructions per recall** counted by ``valgrind --tool=callgrind`` (the VM
has no hardware counters for ``perf stat -e instructions``) in three child runs of the same
in-process recall loop: one recall with everything on (the one-time set-up of the metrics
registry and the tracer, in all three), ``--child-base`` recalls off, then ``--child-recalls``
more with it off (run A) or on (run B), or none (the base run). (A - base) and (B - base)
divided by the recalls are the instructions of one recall off and on; slow (minutes).

Target (issue 16): the on/off ratio under 1.05 for every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from _common import (
    format_table,
    isolated_engramdb,
    latency_summary,
    load_note,
    pin_cores,
    random_paragraph,
    write_json,
)

DATASET = "bench"
TARGET_RATIO = 1.05


def install_tracing(processor: str) -> None:
    """The OpenTelemetry SDK, exporting to nowhere through the chosen span processor."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        SimpleSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    class Discard(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    kind = BatchSpanProcessor if processor == "batch" else SimpleSpanProcessor
    provider.add_span_processor(kind(Discard()))
    trace.set_tracer_provider(provider)


#: What "on" switches on (``--what``): both, or one of them to see its share.
WHAT = {"both": ("metrics", "tracing"), "metrics": ("metrics",), "tracing": ("tracing",)}
_switched: tuple[str, ...] = WHAT["both"]


def switch(on: bool) -> None:
    import engramdb

    for name in WHAT["both"]:
        engramdb.config.set(f"engramdb_{name}_enabled", on and name in _switched)


def texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [random_paragraph(rng, 150, 400) for _ in range(count)]


def queries(count: int, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    return [random_paragraph(rng, 4, 10) for _ in range(count)]


#: Per mode (True: on), the wall-clock and the CPU seconds of each call.
Times = dict[bool, dict[str, list[float]]]


async def interleaved(call: Callable[[str], Awaitable[Any]], qs: list[str], blocks: int) -> Times:
    """Wall-clock and CPU time of ``call`` with observability on and off, in alternating
    blocks (on/off, off/on, ...: every query by default)."""
    times: Times = {on: {"wall": [], "cpu": []} for on in (True, False)}
    blocks = max(1, min(blocks, len(qs)))
    per_block = len(qs) // blocks
    for b in range(blocks):
        order = (True, False) if b % 2 == 0 else (False, True)
        chunk = qs[b * per_block : (b + 1) * per_block]
        for on in order:
            switch(on)
            for q in chunk:
                c0, t0 = time.process_time(), time.perf_counter()
                await call(q)
                times[on]["wall"].append(time.perf_counter() - t0)
                times[on]["cpu"].append(time.process_time() - c0)
    switch(True)
    return times


def row(where: str, times: Times) -> tuple[list[object], dict[str, Any]]:
    on, off = latency_summary(times[True]["wall"]), latency_summary(times[False]["wall"])
    cpu_on, cpu_off = latency_summary(times[True]["cpu"]), latency_summary(times[False]["cpu"])
    ratio = on["p50_ms"] / off["p50_ms"]
    cpu_ratio = cpu_on["p50_ms"] / cpu_off["p50_ms"]
    cpu_mean_ratio = cpu_on["mean_ms"] / cpu_off["mean_ms"]
    ok = ratio < TARGET_RATIO and cpu_ratio < TARGET_RATIO
    cells = [
        where,
        int(on["n"]),
        f"{off['p50_ms']:.3f}",
        f"{on['p50_ms']:.3f}",
        f"{ratio:.3f}",
        f"{cpu_off['p50_ms']:.3f}",
        f"{cpu_on['p50_ms']:.3f}",
        f"{cpu_ratio:.3f}",
        f"{cpu_mean_ratio:.3f}",
        "ok" if ok else "OVER",
    ]
    figures = {
        "off": off,
        "on": on,
        "p50_ratio": ratio,
        "cpu_off": cpu_off,
        "cpu_on": cpu_on,
        "cpu_p50_ratio": cpu_ratio,
        "cpu_mean_ratio": cpu_mean_ratio,
        "ok": ok,
    }
    return cells, figures


async def in_process(args: argparse.Namespace) -> Times:
    from engramdb.engine import Engine
    from engramdb.settings import config

    engine = Engine(config.settings)
    try:
        await engine.remember(texts(args.documents, args.seed), dataset_name=DATASET)
        await engine.wait_for_background_tasks(300)
        qs = queries(args.queries, args.seed)

        async def call(q: str) -> Any:
            return await engine.recall(q, query_type="CHUNKS", datasets=[DATASET])

        for q in qs[: args.warmup]:
            await call(q)
        return await interleaved(call, qs, args.blocks)
    finally:
        await engine.close()


class Served:
    """The REST app of a fresh engine, served by uvicorn in a thread on a free loopback port."""

    def __init__(self) -> None:
        import uvicorn

        from engramdb.engine import Engine
        from engramdb.server import create_app
        from engramdb.settings import config

        self.engine = Engine(config.settings)
        self.sock = socket.socket()
        # Without it a small response waits for the delayed ACK (about 40 ms on loopback).
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        app = create_app(self.engine)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.server.serve(sockets=[self.sock]))

    def call(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=600)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()


async def over_http(args: argparse.Namespace) -> Times:
    import httpx

    served = Served()
    try:

        async def account() -> str:
            user = await served.engine.create_user("bench@example.com")
            _info, key = await served.engine.create_api_key(user.id, name="bench")
            return str(key)

        key = served.call(account())
        with httpx.Client(
            base_url=served.url, headers={"Authorization": f"Bearer {key}"}, timeout=600
        ) as client:
            added = client.post(
                "/api/v1/remember",
                json={"data": texts(args.documents, args.seed), "dataset_name": DATASET},
            )
            added.raise_for_status()
            served.call(served.engine.wait_for_background_tasks(300))
            qs = queries(args.queries, args.seed)

            async def call(q: str) -> Any:
                answer = client.post(
                    "/api/v1/recall",
                    json={"query_text": q, "query_type": "CHUNKS", "datasets": [DATASET]},
                )
                answer.raise_for_status()

            for q in qs[: args.warmup]:
                await call(q)
            return await interleaved(call, qs, args.blocks)
    finally:
        served.stop()


async def per_call_cost(calls: int) -> dict[bool, float]:
    """CPU seconds the instrumentation adds to one verb call, on and off, measured on a handler
    that does nothing (no load-dependent work, and CPU time: stable on a busy machine)."""
    from engramdb.observability.instrument import instrument_verb
    from engramdb.verbs import VERBS

    async def nothing(engine: Any, request: Any) -> None:
        return None

    wrapped = instrument_verb(VERBS["recall"], nothing)
    request = VERBS["recall"].build({"query_text": "q"})
    cost: dict[bool, float] = {}
    for on in (False, True, False, True):
        switch(on)
        t0 = time.process_time()
        for _ in range(calls):
            await wrapped(None, request)
        bare = time.process_time()
        for _ in range(calls):
            await nothing(None, request)
        cost[on] = min(cost.get(on, 1.0), ((bare - t0) - (time.process_time() - bare)) / calls)
    switch(True)
    return cost


async def main(args: argparse.Namespace) -> dict[str, Any]:
    install_tracing(args.processor)
    results: dict[str, Any] = {}
    rows: list[list[object]] = []
    cost = await per_call_cost(args.calls)
    results["per_call_us"] = {"on": cost[True] * 1e6, "off": cost[False] * 1e6}
    async with isolated_engramdb(args.embedder):
        for where, run in (("in-process", in_process), ("HTTP", over_http)):
            if args.only not in (None, where):
                continue
            cells, figures = row(where, await run(args))
            rows.append(cells)
            results[where] = figures
    headers = [
        "where",
        "n each",
        "off p50 ms",
        "on p50 ms",
        "p50 on/off",
        "off CPU p50 ms",
        "on CPU p50 ms",
        "CPU p50 on/off",
        "CPU mean on/off",
        "",
    ]
    print(format_table(headers, rows))
    on_us, off_us = cost[True] * 1e6, cost[False] * 1e6
    print(f"\ninstrumentation per verb call: {on_us:.1f} CPU us on, {off_us:.1f} off", end="")
    for where, figures in results.items():
        if where != "per_call_us":
            share = (cost[True] - cost[False]) / (figures["cpu_off"]["p50_ms"] / 1000)
            figures["per_call_share"] = share
            print(f"; {100 * share:.2f} % of the {where} off CPU p50", end="")
    print()
    if args.instructions:
        results["instructions"] = instructions(args)
    return results


# --- instructions per recall, counted by callgrind ----------------------------------------------

_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


async def child(args: argparse.Namespace) -> None:
    """The loop callgrind counts: ingest, one recall on, ``--child-base`` recalls off, then
    ``--child-recalls`` more in mode ``--child`` (``none``: no more)."""
    async with isolated_engramdb("fake"):
        from engramdb.engine import Engine
        from engramdb.settings import config

        engine = Engine(config.settings)
        try:
            await engine.remember(texts(args.child_documents, args.seed), dataset_name=DATASET)
            await engine.wait_for_background_tasks(300)
            qs = queries(args.child_base + args.child_recalls, args.seed)
            # One recall with everything on in every run: the one-time set-up (the metrics
            # registry, the tracer) is then in the base and not counted as per-recall cost.
            switch(True)
            await engine.recall(qs[0], query_type="CHUNKS", datasets=[DATASET])
            switch(False)
            for q in qs[: args.child_base]:
                await engine.recall(q, query_type="CHUNKS", datasets=[DATASET])
            if args.child != "none":
                switch(args.child == "on")
                for q in qs[args.child_base :]:
                    await engine.recall(q, query_type="CHUNKS", datasets=[DATASET])
        finally:
            await engine.close()


def _callgrind(args: argparse.Namespace, mode: str) -> int:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        mode,
        "--child-base",
        str(args.child_base),
        "--child-recalls",
        str(args.child_recalls),
        "--child-documents",
        str(args.child_documents),
        "--what",
        args.what,
        "--processor",
        args.processor,
        "--cores",
        "0",
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    found = _COLLECTED.findall(done.stderr)
    if done.returncode != 0 or not found:
        raise RuntimeError(f"callgrind run {mode!r} failed:\n{done.stderr[-2000:]}")
    return int(found[-1])


def instructions(args: argparse.Namespace) -> dict[str, float]:
    """Instructions of one in-process recall, off and on, from three callgrind runs."""
    base = _callgrind(args, "none")
    off = (_callgrind(args, "off") - base) / args.child_recalls
    on = (_callgrind(args, "on") - base) / args.child_recalls
    print(
        f"instructions per recall (callgrind, {args.child_documents} documents, "
        f"{args.child_recalls} recalls after {args.child_base}): {off:,.0f} off, "
        f"{on:,.0f} on, on/off {on / off:.4f} "
        f"({'ok' if on / off < TARGET_RATIO else 'OVER'})"
    )
    return {"off": off, "on": on, "ratio": on / off}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedder", choices=["fake", "onnx"], default="fake")
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--queries", type=int, default=600, help="per mode, split into blocks")
    parser.add_argument(
        "--blocks", type=int, default=600, help="on/off alternations (default: every query)"
    )
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20000, help="calls of the per-call figure")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--json", default=None)
    parser.add_argument("--what", choices=sorted(WHAT), default="both")
    parser.add_argument(
        "--processor",
        choices=["simple", "batch"],
        default="simple",
        help="the SDK's span processor (batch adds its worker thread's GIL contention)",
    )
    parser.add_argument("--only", choices=["in-process", "HTTP"], default=None)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions per recall under valgrind's callgrind (minutes)",
    )
    parser.add_argument(
        "--child", choices=["none", "off", "on"], default=None, help=argparse.SUPPRESS
    )
    parser.add_argument("--child-base", type=int, default=30, help="callgrind: recalls before")
    parser.add_argument("--child-recalls", type=int, default=100, help="callgrind: recalls counted")
    parser.add_argument("--child-documents", type=int, default=50, help="callgrind: documents")
    options = parser.parse_args()
    _switched = WHAT[options.what]
    if options.child is not None:
        install_tracing(options.processor)
        asyncio.run(child(options))
        sys.exit(0)
    pin_cores(options.cores)
    print(load_note(options.cores))
    figures = asyncio.run(main(options))
    print(load_note(options.cores, "after"))
    write_json(options.json, {"args": vars(options), **figures})
