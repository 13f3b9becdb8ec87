"""Request models of the session verbs (``engramdb.session``)."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal
from uuid import UUID

from pydantic import BeforeValidator, Field

from engramdb.errors import EngramValidationError
from engramdb.models.requests.common import (
    MAX_SESSION_ID,
    MAX_TOP_K,
    DatasetRef,
    UserOption,
    VerbRequest,
)

__all__ = [
    "MAX_FEEDBACK_TEXT",
    "MAX_SCORE",
    "MIN_SCORE",
    "AddFeedbackRequest",
    "AddGuidanceRequest",
    "AddQARequest",
    "AddTraceRequest",
    "DeleteFeedbackRequest",
    "DeleteSessionRequest",
    "DistillSessionRequest",
    "GetSessionRequest",
    "GetTracesRequest",
    "ListSessionsRequest",
    "validate_feedback_score",
]

SessionName = Annotated[
    str, Field(min_length=1, max_length=MAX_SESSION_ID, description="The session id.")
]
EntryId = Annotated[str | UUID, Field(description="A Q&A entry's qa_id.")]
#: Ratings run from 1 (bad) over 3 (neutral) to 5 (good).
MIN_SCORE, MAX_SCORE = 1, 5


def validate_feedback_score(value: object) -> int | None:
    """None, or an integer rating from 1 to 5 (3 is neutral); EngramValidationError otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise EngramValidationError(
            f"feedback_score must be an integer from {MIN_SCORE} to {MAX_SCORE} (3 is neutral), "
            f"got {type(value).__name__} {value!r}"
        )
    if not MIN_SCORE <= value <= MAX_SCORE:
        raise EngramValidationError(
            f"feedback_score must be from {MIN_SCORE} to {MAX_SCORE} (1 = bad, 3 = neutral, "
            f"5 = good), got {value}"
        )
    return value


Score = Annotated[
    int | None,
    BeforeValidator(validate_feedback_score),
    Field(
        description="1..5; 3 is neutral.",
        json_schema_extra={"minimum": MIN_SCORE, "maximum": MAX_SCORE},
    ),
]
#: Longest feedback text accepted.
MAX_FEEDBACK_TEXT = 10_000
FeedbackText = Annotated[str | None, Field(max_length=MAX_FEEDBACK_TEXT)]
LastN = Annotated[
    int | None, Field(strict=True, ge=1, le=MAX_TOP_K, description="Only the latest N entries.")
]


class AddFeedbackRequest(VerbRequest):
    """``session.add_feedback()``: rate a Q&A entry of your session."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "qa_id")

    session_id: SessionName
    qa_id: EntryId
    feedback_text: FeedbackText = None
    feedback_score: Score = None
    user: UserOption = None


class DeleteFeedbackRequest(VerbRequest):
    """``session.delete_feedback()``: remove a Q&A entry's rating and feedback text."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "qa_id")

    session_id: SessionName
    qa_id: EntryId
    user: UserOption = None


class GetSessionRequest(VerbRequest):
    """``session.get_session()``: the Q&A entries of your session, oldest first."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "last_n")

    session_id: SessionName = "default_session"
    last_n: LastN = None
    user: UserOption = None


class ListSessionsRequest(VerbRequest):
    """``session.list_sessions()``: your sessions, most recently active first."""

    user: UserOption = None


class DeleteSessionRequest(VerbRequest):
    """``session.delete_session()``: delete your session with every entry in it."""

    positional: ClassVar[tuple[str, ...]] = ("session_id",)

    session_id: SessionName
    user: UserOption = None


class AddQARequest(VerbRequest):
    """``session.add_qa()``: store a Q&A turn the application produced itself."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "question", "answer")

    session_id: SessionName
    question: Annotated[str, Field(strict=True)]
    answer: Annotated[str, Field(strict=True)]
    context: str = ""
    feedback_score: Score = None
    feedback_text: FeedbackText = None
    used_graph_element_ids: dict[str, list[str]] | None = None
    user: UserOption = None


class AddTraceRequest(VerbRequest):
    """``session.add_trace()``: record one agent step (parameters and return value as JSON)."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "origin_function")

    session_id: SessionName
    origin_function: Annotated[str, Field(strict=True, min_length=1)]
    status: Literal["success", "error"] = "success"
    method_params: dict[str, Any] | None = None
    method_return_value: Any = None
    error_message: str = ""
    memory_query: str = ""
    memory_context: str = ""
    session_feedback: str = ""
    user: UserOption = None


class GetTracesRequest(VerbRequest):
    """``session.get_traces()``: the recorded agent steps of your session, oldest first."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "last_n")

    session_id: SessionName
    last_n: LastN = None
    user: UserOption = None


class AddGuidanceRequest(VerbRequest):
    """``session.add_guidance()``: add one guidance entry to a context profile's section."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "content")

    session_id: SessionName
    content: Annotated[str, Field(strict=True, min_length=1)]
    section: Annotated[str, Field(min_length=1, max_length=128)]
    context_profile: Annotated[str, Field(min_length=1, max_length=64)] = "qa"
    user: UserOption = None


class DistillSessionRequest(VerbRequest):
    """``session.distill_session()``: write a session's learned guidance into a dataset."""

    positional: ClassVar[tuple[str, ...]] = ("session_id", "dataset")

    session_id: SessionName
    dataset: DatasetRef
    user: UserOption = None
    max_batches: Annotated[
        int | None,
        Field(
            strict=True,
            ge=0,
            description="Batches of 6 entries curated (0: no cap; unset: "
            "IMPROVE_DISTILL_MAX_BATCHES_PER_RUN).",
        ),
    ] = None
