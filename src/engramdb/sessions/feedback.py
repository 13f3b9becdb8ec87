"""AUTO_FEEDBACK: the per-turn analysis of the next message of a session (one LLM call).

When ``AUTO_FEEDBACK`` is on, an LLM is configured and a recall carries a ``session_id``, the
new message is analysed before retrieval, together with the session's previous question and
answer:

* **Rating of the previous answer** — asked only when ``PERSONALIZATION_ENABLED`` is on (the
  question is not even in the prompt otherwise, so with the flag off a turn that carries only a
  rating writes nothing). A value outside 1–5, or anything that is not an integer, degrades to
  "no signal" instead of raising. It is stored on the previous Q&A entry as an *inferred*
  rating, which never overrides an explicit ``session.add_feedback`` score (the store enforces
  that), and 3 stays neutral.
* **Guidance** — up to three reusable instructions ("answer in bullet points") under the ``qa``
  profile's sections; only candidates with confidence >= 0.75 are stored, deduplicated by
  content.

The analysis is fail-open: any error (LLM down, invalid output, store error) is logged and the
recall goes on as if AUTO_FEEDBACK were off.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, field_validator

from engramdb.errors import EngramError
from engramdb.models.records import User
from engramdb.models.sessions import QA_SECTIONS, QARecord
from engramdb.providers.llm.base import LLM, ChatMessage
from engramdb.sessions.guidance import MIN_CONFIDENCE, add_guidance
from engramdb.settings import Settings
from engramdb.storage.base import Store

__all__ = [
    "RATING_SECTION",
    "SYSTEM_PROMPT",
    "CandidateGuidance",
    "RatedTurnAnalysis",
    "TurnAnalysis",
    "TurnOutcome",
    "analyze_turn",
    "coerce_rating",
]

logger = logging.getLogger(__name__)

SYSTEM_PROMPT = """You analyse the newest message of a conversation between a user and an \
assistant that answers from a memory of documents.

Find reusable session guidance in the CURRENT USER MESSAGE: instructions or facts that should \
shape every later answer in this session, not the question itself. Return at most 3 items in \
"candidate_context_updates", each with:
- "section": one of "goals" (what the user is trying to achieve), "rules" (constraints and \
requirements answers must obey), "preferences" (style, format, length, tone only), \
"lessons_learned" (corrections and facts learned during the conversation);
- "content": one short sentence of reusable guidance, not a copy of the message;
- "confidence": from 0 to 1.
Return an empty list when the message holds no such guidance. Answer with JSON only."""

RATING_SECTION = """Previous answer rating: when the CURRENT USER MESSAGE reacts to the PREVIOUS \
ANSWER, rate how satisfied the user is with it in "previous_answer_rating" as an integer from 1 \
(wrong or useless) to 5 (exactly right); 3 means neutral. Use null when the message says nothing \
about the previous answer."""

_MAX_CANDIDATES = 3
_MAX_PART_CHARS = 4_000


def coerce_rating(value: Any) -> int | None:
    """An integer 1..5 (or an integral string like "4"); anything else is "no signal"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        value = int(value.strip())
    if isinstance(value, int) and 1 <= value <= 5:
        return value
    return None


class CandidateGuidance(BaseModel):
    section: str = ""
    content: str = ""
    confidence: float = 0.0

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            return 0.0
        return max(0.0, min(1.0, number)) if number == number else 0.0


class TurnAnalysis(BaseModel):
    """What the analysis returns when no rating is asked for."""

    candidate_context_updates: list[CandidateGuidance] = Field(default_factory=list)

    @field_validator("candidate_context_updates", mode="before")
    @classmethod
    def _candidates(cls, value: Any) -> list[Any]:
        if not isinstance(value, list):
            return []
        return [item for item in value if isinstance(item, dict | CandidateGuidance)][
            :_MAX_CANDIDATES
        ]


class RatedTurnAnalysis(TurnAnalysis):
    """The analysis with the previous-answer rating question (PERSONALIZATION_ENABLED)."""

    previous_answer_rating: int | None = None

    @field_validator("previous_answer_rating", mode="before")
    @classmethod
    def _rating(cls, value: Any) -> int | None:
        return coerce_rating(value)


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """What one analysis stored: the rated Q&A entry (if any) and the new guidance count."""

    rated_qa: QARecord | None = None
    rating: int | None = None
    guidance_added: int = 0


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_PART_CHARS else text[:_MAX_PART_CHARS] + "…"


def build_messages(
    message: str, previous: QARecord | None, *, ask_rating: bool
) -> list[ChatMessage]:
    system = SYSTEM_PROMPT + ("\n\n" + RATING_SECTION if ask_rating else "")
    parts = [f"CURRENT USER MESSAGE:\n{_clip(message.strip())}"]
    if previous is not None:
        parts.append(f"PREVIOUS QUESTION:\n{_clip(previous.question.strip())}")
        if previous.answer.strip():
            parts.append(f"PREVIOUS ANSWER:\n{_clip(previous.answer.strip())}")
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


async def analyze_turn(
    store: Store,
    llm: LLM | None,
    settings: Settings,
    *,
    user: User,
    session_id: str,
    message: str,
) -> TurnOutcome:
    """Analyse ``message`` and store what it says (see the module docstring). Never raises an
    :class:`EngramError`; returns an empty outcome when AUTO_FEEDBACK is off or no LLM is set."""
    if not settings.auto_feedback or llm is None or not message.strip():
        return TurnOutcome()
    try:
        latest = await store.list_qa_entries(user.id, session_ids=[session_id], last_n=1)
        # A note (remember(text, session_id=...)) has no question: there is no answer to rate.
        previous = latest[-1] if latest and latest[-1].question.strip() else None
        ask_rating = settings.personalization_enabled and previous is not None
        schema: type[TurnAnalysis] = RatedTurnAnalysis if ask_rating else TurnAnalysis
        analysis, _ = await llm.structured(
            build_messages(message, previous, ask_rating=ask_rating), schema, cache=False
        )
        return await _apply(store, user, session_id, analysis, previous)
    except EngramError as exc:  # fail-open by contract: the recall itself must go on
        logger.warning(
            "turn analysis of session %r failed; continuing without it: %s", session_id, exc
        )
        return TurnOutcome()


async def _apply(
    store: Store,
    user: User,
    session_id: str,
    analysis: TurnAnalysis,
    previous: QARecord | None,
) -> TurnOutcome:
    rated: QARecord | None = None
    rating = analysis.previous_answer_rating if isinstance(analysis, RatedTurnAnalysis) else None
    if rating is not None and previous is not None:
        rated = await store.set_qa_feedback(
            user.id, session_id, previous.id, score=rating, text=None, source="auto"
        )
    added = 0
    sources = [str(previous.id)] if previous is not None else []
    for candidate in analysis.candidate_context_updates:
        section = candidate.section.strip().lower()
        content = candidate.content.strip()
        if section not in QA_SECTIONS or not content or candidate.confidence < MIN_CONFIDENCE:
            continue
        _, created = await add_guidance(
            store,
            user_id=user.id,
            session_id=session_id,
            profile="qa",
            section=section,
            content=content,
            confidence=candidate.confidence,
            source_ids=sources,
        )
        added += int(created)
    return TurnOutcome(rated_qa=rated, rating=rating, guidance_added=added)
