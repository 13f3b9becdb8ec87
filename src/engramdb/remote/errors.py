"""Problem documents back into engramdb exceptions (the client side of ``server/problems``).

The class comes from the problem's stable ``code`` through :func:`engramdb.errors.by_code`, the
one table of the tree; a problem without a known code (FastAPI's own, or a server newer than
this client) falls back to the most specific class for its HTTP status.
"""

from __future__ import annotations

from typing import Any

import httpx

from engramdb import errors
from engramdb.errors import EngramError, EngramValidationError, RemoteUnavailableError

__all__ = ["RemoteUnavailableError", "error_from_response"]


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
    """The exception a failed response stands for: the class of the problem's ``code``, else
    one with the same status; the message is the problem's ``detail``."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        return RemoteUnavailableError(
            f"the server answered HTTP {response.status_code} without a problem document; is "
            f"{response.request.url} an engramdb server?"
        )
    problem = {**body, "detail": str(body.get("detail", f"HTTP {response.status_code}"))}
    cls = errors.by_code().get(str(body.get("code", ""))) or _by_status(response.status_code)
    return cls.from_problem(problem)
