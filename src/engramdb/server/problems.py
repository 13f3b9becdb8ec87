"""Errors as RFC 9457 problem documents: ONE place turns every failure into a response.

* :class:`~engramdb.errors.EngramError` (and subclasses, including the access package's
  authentication error) answer with the status the class carries and its stable ``code``.
* FastAPI's request validation answers 422 with the offending fields (``errors``), never echoing
  the rejected input back.
* Starlette's HTTP errors (404 for an unknown route, 405, ...) keep their status.
* Anything else is a bug: 500 with a generic message; the details go to the log only.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from engramdb.errors import EngramError

__all__ = [
    "PROBLEM_CONTENT_TYPE",
    "error_response",
    "install_problem_handlers",
    "problem_response",
]

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"


def problem_response(
    status: int,
    title: str,
    detail: str,
    *,
    code: str,
    extra: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """A problem+json response."""
    body: dict[str, Any] = {
        "type": f"urn:engramdb:error:{code}",
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if extra:
        body.update(extra)
    return JSONResponse(body, status_code=status, media_type=PROBLEM_CONTENT_TYPE, headers=headers)


def error_response(exc: EngramError) -> JSONResponse:
    """The response for an engramdb error (status and code from its class)."""
    status = int(getattr(exc, "status_code", 500))
    code = str(getattr(exc, "code", "engram_error"))
    extra: dict[str, Any] = {}
    missing = getattr(exc, "missing", None)
    if isinstance(missing, list) and missing:
        extra["missing"] = [str(m) for m in missing]
    improve_result = getattr(exc, "improve_result", None)
    if improve_result is not None and hasattr(improve_result, "model_dump"):
        extra["improve_result"] = improve_result.model_dump(mode="json")
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status >= 500:
        logger.warning("request failed with %s (%s)", type(exc).__name__, code)
    return problem_response(
        status, type(exc).__name__, exc.message, code=code, extra=extra, headers=headers
    )


async def _engram_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, EngramError)
    return error_response(exc)


async def _validation_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {
            "loc": [str(p) for p in err.get("loc", ())],
            "msg": str(err.get("msg", "")),
            "type": err.get("type", ""),
        }
        for err in exc.errors()[:20]
    ]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(first["loc"])
    return problem_response(
        422,
        "RequestValidationError",
        f"invalid request: {where}: {first['msg']}"
        if where
        else f"invalid request: {first['msg']}",
        code="validation_error",
        extra={"errors": errors},
    )


async def _http_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers) if exc.headers else None
    return problem_response(
        exc.status_code,
        "HTTPError",
        str(exc.detail),
        code=f"http_{exc.status_code}",
        headers=headers,
    )


async def _value_error(_request: Request, exc: Exception) -> JSONResponse:
    # The verbs raise a plain ValueError for some bad arguments by contract (recall's unknown
    # scope, as the reference does): input errors, so 422.
    return problem_response(422, type(exc).__name__, str(exc), code="validation_error")


async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error in the engramdb server: %s", type(exc).__name__)
    return problem_response(
        500,
        "InternalServerError",
        "the server hit an unexpected error; see the server log",
        code="internal_error",
    )


def install_problem_handlers(app: FastAPI) -> None:
    """Register the handlers on ``app``."""
    app.add_exception_handler(EngramError, _engram_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(ValueError, _value_error)
    app.add_exception_handler(Exception, _unexpected)
