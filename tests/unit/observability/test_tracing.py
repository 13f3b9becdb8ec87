"""OpenTelemetry spans for every verb and pipeline stage (issue 16, item 4: "OpenTelemetry spans
for every verb and pipeline stage behind an extra (no-op when absent)"), captured with the SDK's
in-memory exporter through the real remember / recall / improve."""

from __future__ import annotations

from typing import Any
from uuid import uuid4

import pytest

import engramdb
from engramdb.errors import EngramError
from engramdb.settings import IMPROVE_STAGES, config

SECRET_TEXT = "Zanzibar-Quokka moved to Reykjavik."


def _by_name(finished: Any) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for span in finished:
        found.setdefault(span.name, []).append(span)
    return found


async def test_remember_recall_improve_and_every_stage_are_spans(spans: Any) -> None:
    await engramdb.remember(SECRET_TEXT, dataset_name="travel")
    assert await engramdb.wait_for_background_tasks(30)
    await engramdb.recall("Who moved where?", datasets=["travel"], query_type="CHUNKS")
    improved = await engramdb.improve("travel")
    named = _by_name(spans.get_finished_spans())

    for verb in ("remember", "recall", "improve"):
        (span,) = named[f"engramdb.{verb}"]
        assert span.attributes["engramdb.verb"] == verb
        assert span.status.is_ok
    remember = named["engramdb.remember"][0]
    (ingest,) = named["engramdb.ingest"]
    assert ingest.parent.span_id == remember.context.span_id
    assert ingest.attributes["engramdb.count.documents"] == 1
    for stage in ("chunk", "extract", "embed", "write"):
        (part,) = named[f"engramdb.ingest.{stage}"]
        assert part.parent.span_id == ingest.context.span_id
        assert part.attributes["engramdb.dataset_id"] == str(improved.dataset_id)

    # The explicit improve: one child span per stage, in the fixed order, each with its status.
    verb_span = named["engramdb.improve"][0]
    children = [
        s
        for s in spans.get_finished_spans()
        if s.parent is not None and s.parent.span_id == verb_span.context.span_id
    ]
    assert [s.name for s in children] == [f"engramdb.improve.{n}" for n in IMPROVE_STAGES]
    statuses = {
        s.attributes["engramdb.stage"]: s.attributes["engramdb.stage.status"] for s in children
    }
    assert statuses == {r.stage: r.status for r in improved.stages if r.stage in statuses}

    # Names, ids and counts only: never the user's text.
    for span in spans.get_finished_spans():
        for value in span.attributes.values():
            assert "Quokka" not in str(value) and "Reykjavik" not in str(value)


async def test_a_failing_verb_is_an_error_span_naming_the_dataset_id(spans: Any) -> None:
    missing = uuid4()
    with pytest.raises(EngramError):
        await engramdb.improve(missing)
    (span,) = _by_name(spans.get_finished_spans())["engramdb.improve"]
    assert not span.status.is_ok
    assert span.attributes["engramdb.dataset_id"] == str(missing)
    assert any(event.name == "exception" for event in span.events)


async def test_tracing_can_be_switched_off(spans: Any) -> None:
    config.set("engramdb_tracing_enabled", False)
    await engramdb.remember("Owls hunt at night.", dataset_name="off")
    await engramdb.recall("owls", datasets=["off"], query_type="CHUNKS")
    assert await engramdb.wait_for_background_tasks(30)
    assert spans.get_finished_spans() == ()
