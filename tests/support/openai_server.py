"""A real local HTTP server speaking the OpenAI protocol, with scripted answers, for tests.

Tests drive provider clients through their real HTTP stack (httpx, the openai SDK) against this
server instead of mocking them, so retries, timeouts, dropped connections and malformed bodies
are exercised for real.

* Runs on ``127.0.0.1`` with an ephemeral port in a background thread; ``base_url`` is
  ``http://127.0.0.1:PORT/v1``.
* Records every request (:class:`RecordedRequest`: method, path, headers, JSON body) in
  ``server.requests``.
* Each route has a queue of scripted replies, consumed one per request
  (``server.enqueue("embeddings", Reply.json(...), Reply.close())``). A reply is a JSON body with a
  status, a raw body, a delay before answering, or a dropped connection; a callable
  ``(RecordedRequest) -> Reply`` computes one from the request.
* With an empty queue a route answers its default: ``/v1/embeddings`` deterministic vectors of
  ``embedding_dimension`` (:func:`vector_for`), ``/v1/chat/completions`` the text ``chat_text``
  (also as a stream when the request says ``"stream": true``), ``/v1/models`` a model list;
  anything else 404 in OpenAI's error shape. ``server.set_default(route, handler)`` replaces one.
* ``required_api_key``: when set, unscripted requests without ``Authorization: Bearer <key>``
  get 401 (the message echoes the presented key, as OpenAI's does, so scrubbing can be tested).
  Scripted replies are returned whatever the headers.

Use the ``openai_server`` fixture (function scope) or ``with OpenAIServer() as server:``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

__all__ = [
    "OpenAIServer",
    "RecordedRequest",
    "Reply",
    "ReplyLike",
    "openai_server",
    "vector_for",
]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it. ``headers`` keys are lower-case; ``json`` is the
    parsed body (None when the body is empty or not JSON)."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    json: Any


@dataclass(frozen=True)
class Reply:
    """A scripted answer. Build with the class methods; the fields combine (e.g. a JSON body
    after a delay)."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    close: bool = False
    chunks: tuple[bytes, ...] = field(default=())  # when set, sent with chunked encoding

    @classmethod
    def json(
        cls,
        document: Any,
        status: int = 200,
        *,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> Reply:
        """A JSON document (any status)."""
        return cls(
            status=status,
            body=json.dumps(document).encode(),
            headers=tuple((headers or {}).items()),
            delay=delay,
        )

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "scripted error",
        *,
        type_: str = "server_error",
        headers: dict[str, str] | None = None,
    ) -> Reply:
        """An error in OpenAI's shape: ``{"error": {"message", "type", "code"}}``."""
        return cls.json(
            {"error": {"message": message, "type": type_, "param": None, "code": None}},
            status,
            headers=headers,
        )

    @classmethod
    def raw(
        cls,
        body: bytes | str,
        status: int = 200,
        *,
        content_type: str = "application/json",
        delay: float = 0.0,
    ) -> Reply:
        """Bytes sent as they are, e.g. malformed JSON or an HTML error page."""
        data = body.encode() if isinstance(body, str) else body
        return cls(status=status, body=data, content_type=content_type, delay=delay)

    @classmethod
    def sleep(cls, seconds: float, then: Reply | None = None) -> Reply:
        """Wait ``seconds`` before answering ``then`` (default: an empty JSON object), e.g. to
        outlast a client timeout."""
        base = then if then is not None else cls.json({})
        return cls(
            status=base.status,
            body=base.body,
            content_type=base.content_type,
            headers=base.headers,
            delay=seconds,
            close=base.close,
            chunks=base.chunks,
        )

    @classmethod
    def drop(cls, delay: float = 0.0) -> Reply:
        """Close the connection without answering (the client sees the server hang up)."""
        return cls(close=True, delay=delay)

    @classmethod
    def sse(cls, events: list[Any], *, done: bool = True) -> Reply:
        """A server-sent-event stream: each item JSON-encoded as a ``data:`` line."""
        chunks = [f"data: {json.dumps(event)}\n\n".encode() for event in events]
        if done:
            chunks.append(b"data: [DONE]\n\n")
        return cls(content_type="text/event-stream", chunks=tuple(chunks))


#: What may be queued: a fixed reply, or a function of the request.
ReplyLike = Reply | Callable[[RecordedRequest], Reply]


def vector_for(text: str, dimension: int) -> list[float]:
    """The default server's deterministic, unit-norm vector for ``text`` (sha256-seeded)."""
    values: list[float] = []
    counter = 0
    while len(values) < dimension:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for (word,) in struct.iter_unpack("<I", digest):
            values.append(word / 0xFFFFFFFF * 2.0 - 1.0)
        counter += 1
    values = values[:dimension]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


def _route(path: str) -> str:
    """Normalise ``"embeddings"``, ``"/embeddings"``, ``"/v1/embeddings"`` to the last form."""
    path = path.split("?", 1)[0].rstrip("/")
    if path.startswith("/v1/") or path == "/v1":
        return path
    return "/v1/" + path.lstrip("/")


class OpenAIServer:
    """The server; see the module docstring."""

    def __init__(
        self,
        *,
        embedding_dimension: int = 8,
        chat_text: str = "This is a scripted answer.",
        required_api_key: str | None = None,
    ) -> None:
        self.embedding_dimension = embedding_dimension
        self.chat_text = chat_text
        self.required_api_key = required_api_key
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._queues: dict[str, deque[ReplyLike]] = {}
        self._defaults: dict[str, Callable[[RecordedRequest], Reply]] = {
            "/v1/embeddings": self._default_embeddings,
            "/v1/chat/completions": self._default_chat,
            "/v1/models": self._default_models,
        }
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> OpenAIServer:
        if self._httpd is not None:
            return self
        handler = _make_handler(self)
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        httpd.daemon_threads = True
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.name = f"openai-test-server-{self.port}"
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; requests still sleeping in a scripted delay are released at once."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # --- addresses ---------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what clients take as endpoint / base_url."""
        return f"http://127.0.0.1:{self.port}/v1"

    # --- scripting ---------------------------------------------------------------------------

    def enqueue(self, route: str, *replies: ReplyLike) -> None:
        """Append replies to ``route``'s queue (``"embeddings"`` or ``"/v1/embeddings"``)."""
        with self._lock:
            self._queues.setdefault(_route(route), deque()).extend(replies)

    def set_default(self, route: str, handler: Callable[[RecordedRequest], Reply]) -> None:
        """Replace what ``route`` answers when its queue is empty."""
        with self._lock:
            self._defaults[_route(route)] = handler

    def pending(self, route: str) -> int:
        """Scripted replies not consumed yet."""
        with self._lock:
            return len(self._queues.get(_route(route), ()))

    def reset(self) -> None:
        """Forget recorded requests and scripted replies (defaults stay)."""
        with self._lock:
            self._requests.clear()
            self._queues.clear()

    # --- assertions --------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, route: str) -> list[RecordedRequest]:
        target = _route(route)
        return [r for r in self.requests if _route(r.path) == target]

    # --- default answers (also usable to build scripted replies) -----------------------------

    def embedding_document(
        self, inputs: list[str], *, model: str = "test-embedding", dimension: int | None = None
    ) -> dict[str, Any]:
        """The OpenAI embeddings response for ``inputs`` (vectors from :func:`vector_for`)."""
        dim = dimension if dimension is not None else self.embedding_dimension
        return {
            "object": "list",
            "data": [
                {"object": "embedding", "index": i, "embedding": vector_for(text, dim)}
                for i, text in enumerate(inputs)
            ],
            "model": model,
            "usage": {
                "prompt_tokens": sum(len(t.split()) for t in inputs),
                "total_tokens": sum(len(t.split()) for t in inputs),
            },
        }

    def chat_document(self, text: str, *, model: str = "test-chat") -> dict[str, Any]:
        """The OpenAI chat-completion response whose answer is ``text``."""
        return {
            "id": f"chatcmpl-test-{self._next_id()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _next_id(self) -> int:
        with self._lock:
            self._counter += 1
            return self._counter

    def _default_embeddings(self, request: RecordedRequest) -> Reply:
        body = request.json if isinstance(request.json, dict) else {}
        raw = body.get("input")
        if isinstance(raw, str):
            inputs = [raw]
        elif isinstance(raw, list) and all(isinstance(x, str) for x in raw):
            inputs = list(raw)
        else:
            return Reply.error(400, "'input' must be a string or a list of strings", type_="x")
        return Reply.json(
            self.embedding_document(inputs, model=str(body.get("model", "test-embedding")))
        )

    def _default_chat(self, request: RecordedRequest) -> Reply:
        body = request.json if isinstance(request.json, dict) else {}
        model = str(body.get("model", "test-chat"))
        if not body.get("stream"):
            return Reply.json(self.chat_document(self.chat_text, model=model))
        ident = f"chatcmpl-test-{self._next_id()}"
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        return Reply.sse(
            [
                chunk({"role": "assistant", "content": ""}, None),
                chunk({"content": self.chat_text}, None),
                chunk({}, "stop"),
            ]
        )

    def _default_models(self, request: RecordedRequest) -> Reply:
        return Reply.json(
            {
                "object": "list",
                "data": [
                    {"id": "test-embedding", "object": "model", "owned_by": "test"},
                    {"id": "test-chat", "object": "model", "owned_by": "test"},
                ],
            }
        )

    # --- dispatch (called from handler threads) ----------------------------------------------

    def _answer(self, request: RecordedRequest) -> Reply:
        route = _route(request.path)
        with self._lock:
            self._requests.append(request)
            queue = self._queues.get(route)
            scripted = queue.popleft() if queue else None
            default = self._defaults.get(route)
        if scripted is not None:
            return scripted(request) if callable(scripted) else scripted
        if self.required_api_key is not None:
            presented = request.headers.get("authorization", "")
            if presented != f"Bearer {self.required_api_key}":
                shown = presented.removeprefix("Bearer ") or "(none)"
                return Reply.error(
                    401,
                    f"Incorrect API key provided: {shown}.",
                    type_="invalid_request_error",
                )
        if default is None:
            return Reply.error(404, f"no route {request.method} {route}", type_="not_found")
        return default(request)


def _make_handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like real APIs; clients pool connections

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def do_DELETE(self) -> None:
            self._handle()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            try:
                document = json.loads(body) if body else None
            except ValueError:
                document = None
            request = RecordedRequest(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                json=document,
            )
            reply = server._answer(request)
            if reply.delay > 0 and server._stopping.wait(reply.delay):
                self._hang_up()
                return
            if reply.close:
                self._hang_up()
                return
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            for name, value in reply.headers:
                self.send_header(name, value)
            try:
                if reply.chunks:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()
                    for piece in reply.chunks:
                        self.wfile.write(f"{len(piece):X}\r\n".encode() + piece + b"\r\n")
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                else:
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (e.g. its timeout fired)

        def _hang_up(self) -> None:
            self.close_connection = True
            with contextlib.suppress(OSError):  # the client may already be gone
                self.connection.shutdown(socket.SHUT_RDWR)

    return Handler


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started :class:`OpenAIServer` (embedding dimension 8), stopped after the test."""
    with OpenAIServer() as server:
        yield server
