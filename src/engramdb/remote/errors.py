"""Problem documents back into engramdb exceptions (the client side of ``server/problems``)."""

from __future__ import annotations

from typing import Any

import httpx

from engramdb import errors
from engramdb.errors import EngramError, EngramValidationError

__all__ = ["RemoteUnavailableError", "error_from_response"]


class RemoteUnavailableError(EngramError):
    """The engramdb server could not be reached (or answered something that is not engramdb)."""

    status_code = 503
    code = "remote_unavailable"


def _classes() -> dict[str, type[EngramError]]:
    found: dict[str, type[EngramError]] = {}
    stack: list[type[EngramError]] = [EngramError]
    while stack:
        cls = stack.pop()
        found.setdefault(cls.__name__, cls)
        stack.extend(cls.__subclasses__())
    return found


def _by_status(status: int) -> type[EngramError]:
    table: dict[int, type[EngramError]] = {
        400: EngramValidationError,
        401: errors.AuthenticationError,
        402: errors.LLMPaymentRequiredError,
        403: errors.PermissionDeniedError,
        404: errors.NotFoundError,
        409: errors.ConflictError,
        413: EngramValidationError,
        422: EngramValidationError,
        501: errors.FeatureNotAvailableError,
        503: errors.LockTimeoutError,
    }
    return table.get(status, errors.StorageError if status >= 500 else EngramValidationError)


def error_from_response(response: httpx.Response) -> EngramError:
    """The exception a failed response stands for: the class the server named (by its title),
    else one with the same status; the message is the problem's ``detail``."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return RemoteUnavailableError(
            f"the server answered HTTP {response.status_code} without a problem document; is "
            f"{response.request.url} an engramdb server?"
        )
    detail = str(body.get("detail", f"HTTP {response.status_code}"))
    cls = _classes().get(str(body.get("title", "")))
    if cls is None:
        cls = _by_status(response.status_code)
    try:
        if issubclass(cls, errors.DatasetNotFoundError):
            missing = body.get("missing")
            return cls(detail, missing=[str(m) for m in missing or []])
        return cls(detail)
    except TypeError:  # a class with another constructor: keep the status, lose the class
        fallback = _by_status(response.status_code)
        return fallback(detail)
