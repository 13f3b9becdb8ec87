"""The error tree: statuses, codes, stdlib bases, and scrubbing."""

from __future__ import annotations

import pytest

import engramdb
from engramdb.errors import EngramError, scrub_secrets


@pytest.mark.parametrize(
    ("cls", "status"),
    [
        (engramdb.RecallPreconditionError, 422),
        (engramdb.EngramValidationError, 422),
        (engramdb.InvalidHybridSearchConfig, 422),
        (engramdb.DatasetNotFoundError, 404),
        (engramdb.PermissionDeniedError, 403),
        (engramdb.UnauthenticatedError, 401),
        (engramdb.LLMPaymentRequiredError, 402),
        (engramdb.FeatureNotAvailableError, 501),
    ],
)
def test_each_error_carries_its_status(cls: type[EngramError], status: int) -> None:
    assert cls.status_code == status
    problem = cls("boom").to_problem()
    assert problem["status"] == status and problem["detail"] == "boom"


def test_stdlib_bases_for_callers_that_catch_them() -> None:
    assert issubclass(engramdb.EngramValidationError, ValueError)
    assert issubclass(engramdb.FeatureNotAvailableError, NotImplementedError)
    assert engramdb.CogneeValidationError is engramdb.EngramValidationError


def test_codes_are_unique() -> None:
    classes = [getattr(engramdb, n) for n in engramdb.__all__]
    errors = [c for c in classes if isinstance(c, type) and issubclass(c, EngramError)]
    codes = [c.code for c in errors if c is not engramdb.CogneeValidationError]
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize(
    ("raw", "secret"),
    [
        ("Incorrect API key provided: sk-abcdef1234567890XYZ", "abcdef1234567890XYZ"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload", "eyJhbGciOiJIUzI1NiJ9"),
        ("failed for postgresql://admin:hunter2@db:5432/x", "hunter2"),
        ("api_key=supersecretvalue&x=1", "supersecretvalue"),
        ("user alice@example.com not allowed", "alice@example.com"),
    ],
)
def test_scrub_removes_secrets(raw: str, secret: str) -> None:
    cleaned = scrub_secrets(raw)
    assert secret not in cleaned and "[redacted]" in cleaned


def test_scrub_caps_length() -> None:
    assert len(scrub_secrets("x" * 5000)) == 500
