"""The engramdb exception tree.

Every error the library raises on purpose derives from :class:`EngramError`, carries the HTTP
status the REST server answers with (``status_code``) and a stable machine-readable ``code``.
Messages say what went wrong *and* how to fix it.

::

    EngramError
    ├── EngramValidationError (422, also a ValueError)   alias: CogneeValidationError
    │   ├── RecallPreconditionError (422)
    │   ├── InvalidHybridSearchConfig (422)
    │   ├── InvalidCodeQueryError (422)
    │   └── ConfigurationError (422)
    │       └── LLMNotConfiguredError (422)
    ├── NotFoundError (404)
    │   ├── DatasetNotFoundError (404)
    │   └── DataNotFoundError (404)
    ├── PermissionDeniedError (403)
    ├── AuthenticationError (401)          alias: UnauthenticatedError
    ├── ConflictError (409)
    │   └── EmbeddingMismatchError (409)
    ├── ProviderError (502)
    │   ├── EmbeddingProviderError (502)
    │   ├── LLMProviderError (502)
    │   │   └── LLMPaymentRequiredError (402)
    │   └── ModelFileError (500)
    ├── StorageError (500)
    │   ├── DatabaseNotCreatedError (500)
    │   └── LockTimeoutError (503)
    └── FeatureNotAvailableError (501, also a NotImplementedError)

Errors raised by drivers and vendor SDKs are translated at the adapter boundary with
``raise ... from exc`` so callers only ever need to catch this tree.
"""

from __future__ import annotations

import re

__all__ = [
    "AuthenticationError",
    "CogneeValidationError",
    "ConfigurationError",
    "ConflictError",
    "DataNotFoundError",
    "DatabaseNotCreatedError",
    "DatasetNotFoundError",
    "EmbeddingMismatchError",
    "EmbeddingProviderError",
    "EngramError",
    "EngramValidationError",
    "FeatureNotAvailableError",
    "InvalidCodeQueryError",
    "InvalidHybridSearchConfig",
    "LLMNotConfiguredError",
    "LLMPaymentRequiredError",
    "LLMProviderError",
    "LockTimeoutError",
    "ModelFileError",
    "NotFoundError",
    "PermissionDeniedError",
    "ProviderError",
    "RecallPreconditionError",
    "StorageError",
    "UnauthenticatedError",
    "scrub_secrets",
]


class EngramError(Exception):
    """Root of every error engramdb raises on purpose."""

    status_code: int = 500
    code: str = "engram_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_problem(self) -> dict[str, object]:
        """The RFC 9457 problem document the server answers with."""
        return {
            "type": f"urn:engramdb:error:{self.code}",
            "title": type(self).__name__,
            "status": self.status_code,
            "detail": self.message,
        }


class EngramValidationError(EngramError, ValueError):
    """Input that cannot be accepted; nothing was written."""

    status_code = 422
    code = "validation_error"


#: The reference system's name for the same class, so ``except cognee.CogneeValidationError``
#: keeps working after ``import engramdb as cognee``.
CogneeValidationError = EngramValidationError


class RecallPreconditionError(EngramValidationError):
    """recall() before anything was ever ingested."""

    code = "recall_precondition"


class InvalidHybridSearchConfig(EngramValidationError):
    """A graph-only option was passed to a HYBRID_COMPLETION recall."""

    code = "invalid_hybrid_search_config"


class InvalidCodeQueryError(EngramValidationError):
    """``code_query`` was passed without the "code" scope, or is malformed."""

    code = "invalid_code_query"


class ConfigurationError(EngramValidationError):
    """A setting has a value engramdb cannot use."""

    code = "configuration_error"


class LLMNotConfiguredError(ConfigurationError):
    """A completion was asked for and no LLM is configured."""

    code = "llm_not_configured"


class NotFoundError(EngramError):
    status_code = 404
    code = "not_found"


class DatasetNotFoundError(NotFoundError):
    """One or more dataset names did not resolve; ``missing`` lists them."""

    code = "dataset_not_found"

    def __init__(self, message: str, missing: list[str] | None = None) -> None:
        super().__init__(message)
        self.missing = list(missing or [])


class DataNotFoundError(NotFoundError):
    code = "data_not_found"


class PermissionDeniedError(EngramError):
    """The user lacks a permission, or the object does not exist (never told apart)."""

    status_code = 403
    code = "permission_denied"


class AuthenticationError(EngramError):
    """An API key is missing, malformed, unknown or revoked (never told apart)."""

    status_code = 401
    code = "unauthenticated"


#: The earlier name of :class:`AuthenticationError`, kept so existing ``except`` clauses work.
UnauthenticatedError = AuthenticationError


class ConflictError(EngramError):
    status_code = 409
    code = "conflict"


class EmbeddingMismatchError(ConflictError):
    """The configured embedding model does not match the one a dataset was built with."""

    code = "embedding_mismatch"


class ProviderError(EngramError):
    status_code = 502
    code = "provider_error"


class EmbeddingProviderError(ProviderError):
    code = "embedding_provider_error"


class LLMProviderError(ProviderError):
    code = "llm_provider_error"


class LLMPaymentRequiredError(LLMProviderError):
    """The LLM provider answered HTTP 402: the budget is exhausted. Never retried."""

    status_code = 402
    code = "llm_payment_required"


class ModelFileError(ProviderError):
    """A local model file is missing or does not match its pinned checksum."""

    status_code = 500
    code = "model_file_error"


class StorageError(EngramError):
    status_code = 500
    code = "storage_error"


class DatabaseNotCreatedError(StorageError):
    code = "database_not_created"


class LockTimeoutError(StorageError):
    status_code = 503
    code = "lock_timeout"


class FeatureNotAvailableError(EngramError, NotImplementedError):
    """A feature engramdb does not implement yet. The message names it."""

    status_code = 501
    code = "not_implemented"


_SECRET_PATTERNS = [
    re.compile(r"(sk|pk|rk)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(r"(?i)((?:api[_-]?key|token|secret|password|passwd)\s*[=:]\s*)[^\s,;&]+"),
    re.compile(r"(?i)(://[^/\s:@]+:)[^@\s/]+(?=@)"),
    re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}"),
]


def scrub_secrets(message: str, limit: int = 500) -> str:
    """Remove API keys, bearer tokens, passwords in URLs and e-mail addresses from a message.

    Used before an error message is stored (pipeline runs) or shown to another user.
    """
    text = message
    for pattern in _SECRET_PATTERNS:
        if pattern.groups:
            text = pattern.sub(lambda m: (m.group(1) or "") + "[redacted]", text)
        else:
            text = pattern.sub("[redacted]", text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
