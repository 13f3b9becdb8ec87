"""Errors as RFC 9457 problem documents: ONE place turns every failure into a response.

* :class:`~engramdb.errors.EngramError` and its subclasses answer with the document
  :meth:`~engramdb.errors.EngramError.to_problem` makes: the status the class carries, its
  stable ``code`` and the fields it lists (the remote client rebuilds the same class from it).
  Bad input is an :class:`~engramdb.errors.EngramValidationError` (422); a bare ``ValueError``
  reaching this layer is a bug like any other exception.
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
    """The response for an engramdb error (:meth:`~engramdb.errors.EngramError.to_problem`)."""
    body: dict[str, Any] = exc.to_problem()
    improve_result = getattr(exc, "improve_result", None)
    if improve_result is not None and hasattr(improve_result, "model_dump"):
        body["improve_result"] = improve_result.model_dump(mode="json")
    headers = {"WWW-Authenticate": "Bearer"} if exc.status_code == 401 else None
    if exc.status_code >= 500:
        logger.warning("request failed with %s (%s)", type(exc).__name__, exc.code)
    return JSONResponse(
        body, status_code=exc.status_code, media_type=PROBLEM_CONTENT_TYPE, headers=headers
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
    app.add_exception_handler(Exception, _unexpected)
