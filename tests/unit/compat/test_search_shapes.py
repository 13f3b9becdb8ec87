"""cognee's legacy search shapes, from recall's typed entries."""

from __future__ import annotations

from engramdb.api.search import legacy_results
from engramdb.models.results import RecallResponse, ResponseGraphEntry, ResponseMarkerEntry


def entry(kind: str, text: str, **raw: object) -> ResponseGraphEntry:
    return ResponseGraphEntry(text=text, kind=kind, search_type="X", raw=dict(raw))


def test_each_kind_has_cognees_shape() -> None:
    entries: list[RecallResponse] = [
        entry("answer", "Owls hunt at night.", context="Owls hunt at night and sleep."),
        entry("chunk", "Owls hunt.", id="c1", rank=0, chunk_index=0, score=0.1),
        entry("cypher_row", "row", name="Owl", n=1),
        entry("fact", "Owl --hunts--> mice"),
        entry("prompt", "Question: ...", context="the context"),
        ResponseMarkerEntry(status="memory_warming_up", text="warming up"),
    ]
    assert legacy_results(entries, verbose=False) == [
        "Owls hunt at night.",
        {"id": "c1", "chunk_index": 0, "score": 0.1, "text": "Owls hunt."},
        {"name": "Owl", "n": 1, "text": "row"},
        "Owl --hunts--> mice",
        "the context",
    ]


def test_verbose_gives_the_three_results_of_each() -> None:
    (answer,) = legacy_results(
        [entry("answer", "At night.", context="Owls hunt at night.")], verbose=True
    )
    assert answer == {
        "text_result": "At night.",
        "context_result": "Owls hunt at night.",
        "objects_result": {"text": "At night."},
    }
    (chunk,) = legacy_results([entry("chunk", "Owls hunt.", id="c1")], verbose=True)
    assert chunk["text_result"] is None and chunk["context_result"] == "Owls hunt."
