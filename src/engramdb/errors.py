"""The engramdb exception tree.

Every error the library raises on purpose derives from :class:`EngramError`, carries the HTTP
status the REST server answers with (``status_code``) and a stable machine-readable ``code``.
Messages say what went wrong *and* how to fix it.

::

    EngramError (500)
    ├── EngramValidationError (422, also a ValueError)   alias: CogneeValidationError
    │   ├── RecallPreconditionError (422)
    │   ├── InvalidHybridSearchConfig (422)
    │   ├── InvalidCodeQueryError (422)
    │   │   └── CodeSeedNotFoundError (422)
    │   ├── CypherSyntaxError (422)
    │   ├── CypherUnsupportedError (422)
    │   ├── CypherTimeoutError (422)
    │   ├── StatementTimeoutError (422)
    │   ├── PermissionNotFoundError (422)
    │   ├── SqlGuardError (422)
    │   └── ConfigurationError (422)
    │       ├── LLMNotConfiguredError (422)
    │       ├── ToolCallsDisabledError (422)
    │       └── SyncInLoopError (422)
    ├── NotFoundError (404)
    │   ├── DatasetNotFoundError (404)
    │   ├── DataNotFoundError (404)
    │   ├── UserNotFoundError (404)
    │   ├── TenantNotFoundError (404)
    │   ├── RoleNotFoundError (404)
    │   └── ToolConnectionNotFoundError (404)
    ├── PermissionDeniedError (403)
    ├── AuthenticationError (401)          alias: UnauthenticatedError
    ├── ConflictError (409)
    │   └── EmbeddingMismatchError (409)
    ├── ProviderError (502)
    │   ├── EmbeddingProviderError (502)
    │   ├── LLMProviderError (502)
    │   │   ├── LLMPaymentRequiredError (402)
    │   │   ├── LLMOutputError (502)
    │   │   └── LLMBadRequestError (502)
    │   └── ModelFileError (500)
    ├── StorageError (500)
    │   ├── DatabaseNotCreatedError (500)
    │   ├── DatabaseDamagedError (503)
    │   ├── StorageFullError (507)
    │   ├── StorageReadOnlyError (503)
    │   └── LockTimeoutError (503)
    ├── RemoteUnavailableError (503)
    └── FeatureNotAvailableError (501, also a NotImplementedError)

Every class is defined in this module (a test walks ``EngramError.__subclasses__()`` and checks
it). The REST server turns an error into a problem document with :meth:`EngramError.to_problem`
(its ``code`` plus the attributes the class lists in ``problem_fields``); the remote client finds
the class again by that code (:func:`by_code`) and rebuilds it with
:meth:`EngramError.from_problem`, so a remote call raises the class a local one would.

Errors raised by drivers and vendor SDKs are translated at the adapter boundary with
``raise ... from exc`` so callers only ever need to catch this tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Self

from engramdb.spelling import Term

if TYPE_CHECKING:
    from engramdb.providers.llm.base import CallStats

__all__ = [
    "CYPHER_DOCS_HINT",
    "LLM_SETTINGS_HINT",
    "AuthenticationError",
    "CodeSeedNotFoundError",
    "CogneeValidationError",
    "ConfigurationError",
    "ConflictError",
    "CypherSyntaxError",
    "CypherTimeoutError",
    "CypherUnsupportedError",
    "DataNotFoundError",
    "DatabaseDamagedError",
    "DatabaseNotCreatedError",
    "DatasetNotFoundError",
    "EmbeddingMismatchError",
    "EmbeddingProviderError",
    "EngramError",
    "EngramValidationError",
    "FeatureNotAvailableError",
    "InvalidCodeQueryError",
    "InvalidHybridSearchConfig",
    "LLMBadRequestError",
    "LLMNotConfiguredError",
    "LLMOutputError",
    "LLMPaymentRequiredError",
    "LLMProviderError",
    "LockTimeoutError",
    "ModelFileError",
    "NotFoundError",
    "PermissionDeniedError",
    "PermissionNotFoundError",
    "ProviderError",
    "RecallPreconditionError",
    "RemoteUnavailableError",
    "RoleNotFoundError",
    "SqlGuardError",
    "StatementTimeoutError",
    "StorageError",
    "StorageFullError",
    "StorageReadOnlyError",
    "SyncInLoopError",
    "TenantNotFoundError",
    "ToolCallsDisabledError",
    "ToolConnectionNotFoundError",
    "UnauthenticatedError",
    "UserNotFoundError",
    "by_code",
    "error_class_name",
    "scrub_secrets",
]


class EngramError(Exception):
    """Root of every error engramdb raises on purpose."""

    status_code: ClassVar[int] = 500
    code: ClassVar[str] = "engram_error"
    #: Attributes that travel in the problem document next to ``detail`` (JSON values).
    problem_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, message: str, terms: Sequence[Term] = ()) -> None:
        """With ``terms``, ``message`` is a template (``"Run {0} first"``) whose fields name them;
        the message proper spells them for Python (see :mod:`engramdb.spelling`)."""
        self.template = message
        self.terms = tuple(terms)
        text = message.format(*(t.python for t in self.terms)) if self.terms else message
        super().__init__(text)
        self.message = text

    def render(self, spell: Callable[[Term], str]) -> str:
        """The message with its terms spelled by ``spell`` (a surface's own spelling)."""
        if not self.terms:
            return self.message
        return self.template.format(*(spell(t) for t in self.terms))

    def to_problem(self) -> dict[str, object]:
        """The RFC 9457 problem document the server answers with."""
        problem: dict[str, object] = {
            "type": f"urn:engramdb:error:{self.code}",
            "title": type(self).__name__,
            "status": self.status_code,
            "detail": self.message,
            "code": self.code,
        }
        for name in self.problem_fields:
            value = getattr(self, name, None)
            if value is not None and value != []:
                problem[name] = value
        if self.terms:
            problem["template"] = self.template
            problem["terms"] = [t.to_json() for t in self.terms]
        return problem

    @classmethod
    def from_problem(cls, problem: Mapping[str, Any]) -> Self:
        """The error a problem document of this class stands for (:meth:`to_problem` reversed).

        Rebuilt without calling the subclass's constructor (some format their message from
        other arguments): the message is ``detail`` as sent, the ``problem_fields`` are set
        from the document when present, and otherwise keep their class defaults."""
        error = cls.__new__(cls)
        EngramError.__init__(error, str(problem.get("detail", "")))
        terms = problem.get("terms")
        if isinstance(terms, list) and isinstance(problem.get("template"), str):
            error.template = problem["template"]
            error.terms = tuple(Term.from_json(t) for t in terms if isinstance(t, Mapping))
        for name in cls.problem_fields:
            if problem.get(name) is not None:
                setattr(error, name, problem[name])
        return error


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


class CodeSeedNotFoundError(InvalidCodeQueryError):
    """A code-graph seed (name or id) that does not resolve, or resolves ambiguously, in the
    dataset's code graph. The recall "code" lane treats it as "no results"."""

    code = "code_seed_not_found"


#: Where the supported Cypher subset is described; every Cypher error message ends with it.
CYPHER_DOCS_HINT = "see docs/cypher.md for the supported subset"


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` in ``text``."""
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


class CypherSyntaxError(EngramValidationError):
    """A Cypher query that does not parse, with where it went wrong (``offset``, ``line``,
    ``column``; None on an error rebuilt from a problem without them). Nothing was executed."""

    code = "cypher_syntax_error"
    problem_fields = ("offset", "line", "column")
    offset: int | None = None
    line: int | None = None
    column: int | None = None

    def __init__(self, message: str, query: str, offset: int) -> None:
        line, column = _line_col(query, offset)
        super().__init__(
            f"Cypher syntax error at line {line}, column {column} (offset {offset}): {message}; "
            + CYPHER_DOCS_HINT
        )
        self.offset = offset
        self.line = line
        self.column = column


class CypherUnsupportedError(EngramValidationError):
    """Valid Cypher outside the subset: a write clause, another unsupported clause or feature.

    ``clause`` names it (``"CREATE"``, ``"LOAD CSV"``, ``"variable-length relationship"``...).
    """

    code = "cypher_unsupported"
    problem_fields = ("clause", "offset", "line", "column")
    clause: str | None = None
    offset: int | None = None
    line: int | None = None
    column: int | None = None

    def __init__(self, clause: str, query: str, offset: int, *, write: bool = False) -> None:
        line, column = _line_col(query, offset)
        what = (
            f"CYPHER is read-only: the {clause} clause is not supported"
            if write
            else f"{clause} is not supported by engramdb's Cypher subset"
        )
        super().__init__(f"{what} (line {line}, column {column}); {CYPHER_DOCS_HINT}")
        self.clause = clause
        self.offset = offset
        self.line = line
        self.column = column


class CypherTimeoutError(EngramValidationError):
    """The query ran longer than its time budget and was aborted (nothing was changed)."""

    code = "cypher_timeout"


class StatementTimeoutError(EngramValidationError):
    """A read-only statement ran longer than its time budget and was stopped (nothing changed).
    The store raises it; CYPHER reports it as :class:`CypherTimeoutError`."""

    code = "statement_timeout"


class PermissionNotFoundError(EngramValidationError):
    """A permission name other than read, write, delete or share."""

    code = "permission_not_found"


class ConfigurationError(EngramValidationError):
    """A setting has a value engramdb cannot use."""

    code = "configuration_error"


#: What to set so that engramdb has an LLM: the advice every "no LLM" error gives.
LLM_SETTINGS_HINT = (
    "set LLM_API_KEY (and LLM_ENDPOINT / LLM_MODEL for a non-OpenAI server such as Ollama)"
)


class LLMNotConfiguredError(ConfigurationError):
    """A completion was asked for and no LLM is configured."""

    code = "llm_not_configured"

    @classmethod
    def needed_for(
        cls, what: str, *instead: str, terms: Sequence[Term] = ()
    ) -> LLMNotConfiguredError:
        """The error for ``what`` (a clause: "X writes its answer with an LLM"), with the LLM
        settings to set and the alternatives ``instead`` that work without one (templates
        whose ``{0}``, ``{1}``... fields name ``terms``, see :mod:`engramdb.spelling`)."""
        alternatives = "".join(f", or {option}" for option in instead)
        head = f"{what}, and none is configured: {LLM_SETTINGS_HINT}"
        if not terms:
            return cls(head + alternatives)
        return cls(head.replace("{", "{{").replace("}", "}}") + alternatives, terms)


class ToolCallsDisabledError(ConfigurationError):
    """Recall's ``tools`` scope (or a write proposal) was asked for and the deployment has not
    turned tool calls on (TOOL_CALLS_ENABLED, TOOL_WRITE_CALLS_ENABLED)."""

    code = "tool_calls_disabled"


class SyncInLoopError(ConfigurationError):
    """A blocking verb of :mod:`engramdb.sync` was called on a thread whose event loop is
    running: that thread must await the async verb instead."""

    code = "sync_in_loop"


class SqlGuardError(EngramValidationError):
    """SQL (written by the model) that the tools guard refuses: anything but one read-only
    SELECT on the connection's own tables, or for a write proposal one bounded UPDATE."""

    code = "sql_guard_error"


class NotFoundError(EngramError):
    status_code = 404
    code = "not_found"


class ToolConnectionNotFoundError(NotFoundError):
    """No registered tool connection (or write proposal) of that name or id for the acting
    user: the same whether it does not exist or belongs to someone else."""

    code = "tool_connection_not_found"


class DatasetNotFoundError(NotFoundError):
    """One or more dataset names did not resolve; ``missing`` lists them."""

    code = "dataset_not_found"
    problem_fields = ("missing",)

    def __init__(self, message: str, missing: list[str] | None = None) -> None:
        super().__init__(message)
        self.missing = list(missing or [])

    @classmethod
    def from_problem(cls, problem: Mapping[str, Any]) -> Self:
        error = super().from_problem(problem)
        error.missing = [str(m) for m in problem.get("missing") or []]
        return error


class DataNotFoundError(NotFoundError):
    code = "data_not_found"


class UserNotFoundError(NotFoundError):
    """No user with that id (or e-mail)."""

    code = "user_not_found"


class TenantNotFoundError(NotFoundError):
    """No tenant with that id that you belong to (an unknown tenant and another organisation's
    tenant are never told apart)."""

    code = "tenant_not_found"


class RoleNotFoundError(NotFoundError):
    """No role with that id in a tenant you belong to (never told apart from an unknown id)."""

    code = "role_not_found"


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


class LLMOutputError(LLMProviderError):
    """The model answered, but not with output matching the requested schema -- even after one
    repair round. The provider itself works, so callers may fall back (e.g. to offline
    extraction) instead of failing the whole operation. ``stats`` holds what the failed
    attempt cost, so the caller's accounting stays honest (None when it is not known, e.g.
    on an error rebuilt from a server's problem document)."""

    code = "llm_output_error"
    stats: CallStats | None = None

    def __init__(self, message: str, *, stats: CallStats | None = None) -> None:
        super().__init__(message)
        self.stats = stats


class LLMBadRequestError(LLMProviderError):
    """The LLM server rejected the request as malformed (HTTP 400/422). ``detail`` is the
    server's own text: the OpenAI-compatible provider reads it to drop an optional request
    feature the server does not support (response_format, temperature) and try again, and
    raises this error when nothing is left to drop."""

    code = "llm_bad_request"
    detail: str = ""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


class ModelFileError(ProviderError):
    """A local model file is missing or does not match its pinned checksum."""

    status_code = 500
    code = "model_file_error"


class StorageError(EngramError):
    status_code = 500
    code = "storage_error"


class StorageFullError(StorageError):
    """The disk holding the store is full: the write was rolled back; reads keep working."""

    status_code = 507
    code = "storage_full"


class StorageReadOnlyError(StorageError):
    """The store cannot be written (a read-only data directory or database); reads keep
    working."""

    status_code = 503
    code = "storage_read_only"


class DatabaseDamagedError(StorageError):
    """The database file is damaged or is not an engramdb database; nothing was changed."""

    status_code = 503
    code = "database_damaged"


class DatabaseNotCreatedError(StorageError):
    code = "database_not_created"


class LockTimeoutError(StorageError):
    status_code = 503
    code = "lock_timeout"


class RemoteUnavailableError(EngramError):
    """The engramdb server could not be reached (or answered something that is not engramdb).
    Raised by the remote client only."""

    status_code = 503
    code = "remote_unavailable"


class FeatureNotAvailableError(EngramError, NotImplementedError):
    """A feature engramdb does not implement yet. The message names it."""

    status_code = 501
    code = "not_implemented"


def error_class_name(exc: BaseException) -> str:
    """The class name a run record keeps for ``exc``: for one of the generic provider errors
    raised from a provider's own exception, that exception's class (recall.md's build_failed
    marker: ``error_class`` "AuthenticationError" for an LLM that refused the key); else
    ``exc``'s (a specific one such as LLMPaymentRequiredError says more than the provider's)."""
    cause = exc.__cause__
    generic = type(exc) in (ProviderError, LLMProviderError, EmbeddingProviderError)
    if generic and cause is not None and not isinstance(cause, EngramError):
        return type(cause).__name__
    return type(exc).__name__


def by_code() -> dict[str, type[EngramError]]:
    """Every error class of this module by its stable ``code``: the one table that turns a
    problem document back into its class (aliases are the same class, listed once)."""
    table: dict[str, type[EngramError]] = {}
    for name in __all__:
        value = globals()[name]
        if isinstance(value, type) and issubclass(value, EngramError):
            table.setdefault(value.code, value)
    return table


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
