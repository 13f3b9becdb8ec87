"""The heuristic extractor: the seed sentences, the behaviours it promises, its bounds."""

from __future__ import annotations

import pytest

from engramdb.extract.heuristic.chunk import extract_chunk
from engramdb.extract.heuristic.text import clean_input
from engramdb.extract.offline import HeuristicExtractor
from engramdb.extract.types import ENTITY_TYPES, Extractor
from tests.unit.extract.cases import (
    HUGE_SENTENCES,
    ROBUSTNESS_INPUTS,
    SEED_ALICE,
    SEED_ANDREAS,
    SEED_DIANA,
    assert_well_formed,
    names,
    pairs,
    ten_thousand_capitalised_words,
    triples,
)


@pytest.fixture
def extractor() -> HeuristicExtractor:
    return HeuristicExtractor()


def test_is_an_extractor(extractor: HeuristicExtractor) -> None:
    assert isinstance(extractor, Extractor)
    assert extractor.name == "heuristic"


def test_seed_andreas(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one(SEED_ANDREAS)
    assert names(result) == {"Andreas": "PERSON", "Venice": "PLACE", "Lisbon": "PLACE"}
    assert triples(result) == {
        ("Andreas", "born_in", "Venice"),
        ("Andreas", "settle_in", "Lisbon"),
    }
    assert result.source == "heuristic"
    assert result.summary == SEED_ANDREAS


def test_seed_diana_and_tom(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one(SEED_DIANA)
    assert names(result) == {
        "Diana": "PERSON",
        "Tom": "PERSON",
        "Helsinki": "PLACE",
        "Berlin": "PLACE",
    }
    found = triples(result)
    # Coordinated subjects and verbs: both were born and raised in Helsinki.
    for person in ("Diana", "Tom"):
        assert (person, "born_in", "Helsinki") in found
        assert (person, "raised_in", "Helsinki") in found
    assert ("Diana", "reside_in", "Berlin") in found
    # "Tom never moved": a negated verb yields no edge.
    assert not any(s == "Tom" and t == "Berlin" for s, _, t in found)


def test_seed_alice_and_bob(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one(SEED_ALICE)
    assert names(result) == {
        "Alice": "PERSON",
        "Paris": "PLACE",
        "2010": "DATE",
        "Bob": "PERSON",
        "New York": "PLACE",
    }
    assert triples(result) == {
        ("Alice", "move_to", "Paris"),
        ("Alice", "move_in", "2010"),
        ("Bob", "live_in", "New York"),
    }


def test_chat_speaker_resolves_first_person(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one(
        "Caroline: I went to the LGBTQ support group yesterday.\n\n"
        "Melanie: Wow! I'm flying to Tokyo on 12 March."
    )
    found = names(result)
    assert found["Caroline"] == "PERSON" and found["Melanie"] == "PERSON"
    assert found["LGBTQ support group"] == "CONCEPT"
    assert found["12 March"] == "DATE"
    assert "yesterday" not in {n.lower() for n in found}  # relative: not a DATE entity
    assert {
        ("Caroline", "go_to", "LGBTQ support group"),
        ("Melanie", "fly_to", "Tokyo"),
        ("Melanie", "fly_on", "12 March"),
    } <= triples(result)


def test_temporal_and_numeric_patterns(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one(
        "Session 1: 1:56 pm on 8 May, 2023. The deal closed on 2024-05-14 for $3.5 million, "
        "40% above the 1,200 estimate made in May 2023 at 10:00 AM."
    )
    found = names(result)
    assert found["1:56 pm"] == "TIME"
    assert found["10:00 AM"] == "TIME"
    assert found["8 May, 2023"] == "DATE"
    assert found["2024-05-14"] == "DATE"
    assert found["May 2023"] == "DATE"
    assert found["$3.5 million"] == "MONEY"
    assert found["40%"] == "NUMBER"
    assert found["1,200"] == "NUMBER"
    assert "Session 1" not in found


@pytest.mark.parametrize(
    ("text", "expected", "absent"),
    [
        ("However, Sophie never told Mark about it.", {"Sophie", "Mark"}, {"However"}),
        ("I think May is the best month to visit Portugal.", {"May", "Portugal"}, {"I"}),
        ("May Johnson works for the Red Cross in Geneva.", {"May Johnson", "Red Cross"}, set()),
        ("Dr. Hannah Weiss joined St. Mary's Hospital.", {"Hannah Weiss"}, {"Dr"}),
        ("Yesterday my son Luke graduated.", {"Luke"}, {"Yesterday"}),
        ("THE BEST DAY EVER!!! We adopted a puppy.", set(), {"THE BEST DAY EVER", "BEST"}),
        ("Hey Mel! Lol, OMG that was great.", {"Mel"}, {"Hey", "Lol", "OMG"}),
    ],
)
def test_capitalisation(
    extractor: HeuristicExtractor, text: str, expected: set[str], absent: set[str]
) -> None:
    found = set(names(extractor.extract_one(text)))
    assert expected <= found
    assert not absent & found


def test_types_from_cues(extractor: HeuristicExtractor) -> None:
    found = names(
        extractor.extract_one(
            "Mrs. Lindqvist from Uppsala joined Nordwind Energy Ltd. after studying at the "
            "University of Bologna, and she ran the Glastonbury Festival in June."
        )
    )
    assert found["Lindqvist"] == "PERSON"  # title
    assert found["Uppsala"] == "PLACE"  # "from <X>"
    assert found["Nordwind Energy Ltd"] == "ORGANIZATION"  # suffix
    assert found["University of Bologna"] == "ORGANIZATION"
    assert found["Glastonbury Festival"] == "EVENT"
    assert found["June"] == "DATE"


def test_relation_patterns(extractor: HeuristicExtractor) -> None:
    found = triples(
        extractor.extract_one(
            "Priya works for Acme Corp in Toronto. The Louvre was founded in 1793 by "
            "Napoleon. Kyoto was the capital of Japan."
        )
    )
    assert ("Priya", "work_for", "Acme Corp") in found
    assert ("Priya", "work_in", "Toronto") in found
    assert ("Louvre", "founded_in", "1793") in found
    assert ("Louvre", "founded_by", "Napoleon") in found
    assert ("Kyoto", "capital_of", "Japan") in found


def test_questions_state_no_relations(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one("Melanie: Are you still going to Sweden in June?")
    assert "Sweden" in names(result)
    assert result.relations == []


def test_pronouns_resolve_to_previous_subject(extractor: HeuristicExtractor) -> None:
    found = pairs(extractor.extract_one("Marie Curie was born in Warsaw. She moved to Paris."))
    assert ("Marie Curie", "Paris") in found


def test_deterministic(extractor: HeuristicExtractor) -> None:
    text = f"{SEED_DIANA} {SEED_ALICE} {SEED_ANDREAS}"
    first = extractor.extract_one(text)
    for _ in range(3):
        assert extractor.extract_one(text) == first
    assert HeuristicExtractor().extract_one(text) == first


def test_entity_types_are_known(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one(f"{SEED_DIANA} {SEED_ALICE} Acme Inc. paid $5 on Monday.")
    assert {e.type for e in result.entities} <= set(ENTITY_TYPES)


def test_descriptions_are_the_first_mentioning_sentence(extractor: HeuristicExtractor) -> None:
    result = extractor.extract_one(SEED_DIANA)
    by_name = {e.name: e.description for e in result.entities}
    assert by_name["Berlin"].startswith("Diana currently resides in Berlin")
    assert all(
        e.description == ""
        for e in HeuristicExtractor(descriptions=False).extract_one(SEED_DIANA).entities
    )


async def test_extract_returns_one_result_per_text_in_order(
    extractor: HeuristicExtractor,
) -> None:
    texts = [SEED_ANDREAS, "", SEED_ALICE, "nothing here", SEED_DIANA]
    results = await extractor.extract(texts)
    assert len(results) == len(texts)
    assert "Andreas" in names(results[0])
    assert results[1].entities == [] and results[1].summary == ""
    assert "Alice" in names(results[2])
    assert "Diana" in names(results[4])
    assert all(r.source == "heuristic" for r in results)
    assert await extractor.extract([]) == []


def test_bounds_on_ten_thousand_capitalised_words() -> None:
    extractor = HeuristicExtractor(max_entities=50, max_relations=100)
    result = extractor.extract_one(ten_thousand_capitalised_words())
    assert len(result.entities) == 50
    assert_well_formed(result, 50, 100)


@pytest.mark.parametrize("text", list(HUGE_SENTENCES.values()), ids=list(HUGE_SENTENCES))
def test_one_huge_sentence_is_bounded(text: str) -> None:
    # how long they take is measured by bench/extraction.py (bounds table), not here
    assert_well_formed(HeuristicExtractor().extract_one(text), 50, 100)


def test_one_megabyte_is_cut_and_bounded() -> None:
    text = (SEED_ALICE + " ") * (1_000_000 // (len(SEED_ALICE) + 1))
    extractor = HeuristicExtractor()
    result = extractor.extract_one(text)
    assert_well_formed(result, extractor.max_entities, extractor.max_relations)
    assert "Alice" in names(result)
    assert len(result.summary) <= 400


@pytest.mark.parametrize("text", ROBUSTNESS_INPUTS, ids=range(len(ROBUSTNESS_INPUTS)))
def test_robustness_inputs_never_raise(text: str) -> None:
    # The inner function has no fail-open guard: a bug shows here instead of being logged.
    result = extract_chunk(text, max_entities=50, max_relations=100)
    assert_well_formed(result, 50, 100)
    outer = HeuristicExtractor().extract_one(text)
    if clean_input(text, 100_000) == text:
        assert outer == result  # the wrapper changes nothing for clean text
    assert_well_formed(outer, 50, 100)
    if text.strip():
        assert outer.summary


def test_non_string_input_is_coerced() -> None:
    extractor = HeuristicExtractor()
    result = extractor.extract_one(SEED_ANDREAS.encode())  # type: ignore[arg-type]
    assert "Andreas" in names(result)
    assert_well_formed(extractor.extract_one(None), 50, 100)  # type: ignore[arg-type]


def test_fail_open_logs_and_returns_a_summary(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr("engramdb.extract.offline.extract_chunk", boom)
    result = HeuristicExtractor().extract_one(SEED_ANDREAS)
    assert result.entities == [] and result.relations == []
    assert result.summary == SEED_ANDREAS
    assert "heuristic extraction failed" in caplog.text
