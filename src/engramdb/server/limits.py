"""Request limits, enforced before a route sees the request (a pure ASGI middleware).

* Body size: JSON bodies up to ``max_json_bytes``, multipart uploads up to ``max_upload_bytes``
  (413 beyond; an oversized ``Content-Length`` is refused before a byte is read).
* Request line and headers up to ``max_head_bytes`` (enforced by uvicorn, configured through
  :meth:`Limits.uvicorn_options`).
* JSON bodies must be valid UTF-8 and nest at most ``max_json_depth`` levels (422 otherwise), so
  a hostile document can neither exhaust the parser's recursion nor smuggle undecodable text.

The buffered body is replayed to the application unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from engramdb.server.problems import problem_response

__all__ = ["BodyLimitMiddleware", "Limits", "json_depth"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Limits:
    """Request limits of one server."""

    max_json_bytes: int = 8 * 1024 * 1024
    max_upload_bytes: int = 64 * 1024 * 1024
    max_json_depth: int = 32
    #: The request line and headers uvicorn buffers before it answers 400 and drops the
    #: connection: room for the longest query string the API documents (1,000 dataset names of
    #: up to 128 characters, percent-encoded, beside 1,000 dataset ids).
    max_head_bytes: int = 2 * 1024 * 1024

    def uvicorn_options(self) -> dict[str, Any]:
        """Options for ``uvicorn.run`` / ``uvicorn.Config`` that enforce these limits there."""
        return {"h11_max_incomplete_event_size": self.max_head_bytes}


def json_depth(value: object, limit: int) -> int:
    """Nesting depth of a parsed JSON value (iterative; stops counting past ``limit``)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children)
    return deepest


class _Refused(Exception):
    def __init__(self, status: int, detail: str, code: str) -> None:
        super().__init__(detail)
        self.status, self.detail, self.code = status, detail, code


class BodyLimitMiddleware:
    """Buffers each request body within the limits, checks JSON, then calls the app."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        ctype = headers.get("content-type", "").lower()
        multipart = ctype.startswith("multipart/")
        limit = self.limits.max_upload_bytes if multipart else self.limits.max_json_bytes
        try:
            body = await self._read(receive, headers, limit)
            if not multipart and body:
                self._check_json(body)
        except _Refused as refused:
            response = problem_response(
                refused.status, "RequestRefused", refused.detail, code=refused.code
            )
            await response(scope, receive, send)
            return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive, headers: dict[str, str], limit: int) -> bytes:
        declared = headers.get("content-length")
        if declared is not None:
            try:
                if int(declared) > limit:
                    raise _Refused(413, _too_large(limit), "payload_too_large")
            except ValueError as exc:
                raise _Refused(400, "Content-Length is not a number", "bad_request") from exc
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Refused(400, "the client disconnected", "bad_request")
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise _Refused(413, _too_large(limit), "payload_too_large")
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _check_json(self, body: bytes) -> None:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _Refused(
                422, f"the request body is not valid UTF-8 (byte {exc.start})", "invalid_utf8"
            ) from exc
        try:
            parsed = json.loads(text)
        except RecursionError as exc:
            raise _Refused(422, _too_deep(self.limits.max_json_depth), "json_too_deep") from exc
        except ValueError:
            return  # not JSON (or malformed): the route's own validation answers 422
        if json_depth(parsed, self.limits.max_json_depth) > self.limits.max_json_depth:
            raise _Refused(422, _too_deep(self.limits.max_json_depth), "json_too_deep")


def _too_large(limit: int) -> str:
    return (
        f"the request body is larger than {limit} bytes; send less data per request (split "
        "the input over several calls)"
    )


def _too_deep(limit: int) -> str:
    return f"the JSON body nests deeper than {limit} levels; flatten it"
