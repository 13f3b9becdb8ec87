"""Checks of session arguments; each raises EngramValidationError naming the fix."""

from __future__ import annotations

from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.models.requests.common import MAX_SESSION_ID
from engramdb.models.requests.sessions import MAX_FEEDBACK_TEXT, validate_feedback_score
from engramdb.models.sessions import CONTEXT_PROFILES, ContextProfile, sections_for

__all__ = [
    "MAX_FEEDBACK_TEXT",
    "MAX_SESSION_ID",
    "validate_context_profile",
    "validate_entry_id",
    "validate_feedback_score",
    "validate_feedback_text",
    "validate_section",
    "validate_session_id",
]

#: Lowest and highest rating; 3 is neutral.


def validate_session_id(value: object) -> str:
    """A non-empty string of at most :data:`MAX_SESSION_ID` characters."""
    if not isinstance(value, str):
        raise EngramValidationError(
            f"session_id must be a string, got {type(value).__name__}; e.g. session_id='chat-1'"
        )
    if not value.strip():
        raise EngramValidationError("session_id must not be empty; e.g. session_id='chat-1'")
    if len(value) > MAX_SESSION_ID:
        raise EngramValidationError(
            f"session_id is {len(value)} characters long; use at most {MAX_SESSION_ID}"
        )
    return value


def validate_feedback_text(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise EngramValidationError(f"feedback_text must be a string, got {type(value).__name__}")
    if len(value) > MAX_FEEDBACK_TEXT:
        raise EngramValidationError(
            f"feedback_text is {len(value)} characters long; use at most {MAX_FEEDBACK_TEXT}"
        )
    return value


def validate_entry_id(value: object, what: str = "qa_id") -> UUID:
    """An entry id as returned by the session API (a UUID or its string)."""
    if isinstance(value, UUID):
        return value
    if isinstance(value, str):
        try:
            return UUID(value)
        except ValueError:
            pass
    raise EngramValidationError(
        f"{what} must be the id of a session entry (a UUID such as the qa_id values "
        f"session.get_session() returns), got {value!r}"
    )


def validate_context_profile(value: object) -> ContextProfile:
    if value == "qa":
        return "qa"
    if value == "agent":
        return "agent"
    raise EngramValidationError(
        f"context_profile must be one of {', '.join(CONTEXT_PROFILES)}, got {value!r}"
    )


def validate_section(profile: ContextProfile, value: object) -> str:
    sections = sections_for(profile)
    section = value.strip().lower() if isinstance(value, str) else ""
    if section not in sections:
        raise EngramValidationError(
            f"section {value!r} is not a section of the {profile!r} profile; use one of "
            f"{', '.join(sections)}"
        )
    return section
