"""Entity resolution: the name core, grouping within a document, and what must never merge."""

from __future__ import annotations

import pytest

from engramdb.extract.offline import HeuristicExtractor
from engramdb.extract.resolve import (
    chat_speakers,
    display_name,
    entity_key,
    group_mentions,
    name_core,
    resolve_document,
    text_words,
)
from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
from engramdb.ingest.graph_builder import entity_id
from engramdb.models.records import stable_id


def groups(*mentions: str, type_: str = "PERSON") -> list[list[str]]:
    return [list(g.names) for g in group_mentions([(m, type_) for m in mentions])]


# -- the name core ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Dr. Jane Smith", "Jane Smith"),
        ("President Barack Obama", "Barack Obama"),
        ("JANE SMITH", "jane smith"),
        ("Beyoncé", "Beyonce"),
        ("Jean-Paul Sartre", "Jean Paul Sartre"),
        ("Martin Luther King, Jr.", "Martin Luther King Jr"),
        ("Martin Luther King Junior", "Martin Luther King Jr."),
        ("Jane Smith, PhD", "Jane Smith"),
        ("O'Brien", "OBrien"),
        ("Smith's", "Smith"),
        ("Charles'", "Charles"),
    ],
)
def test_variants_of_one_person_have_one_key(a: str, b: str) -> None:
    assert entity_key(a) == entity_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Martin Luther King Jr.", "Martin Luther King Sr."),
        ("Nicholas I", "Nicholas II"),
        ("Mr. Smith", "Mrs. Smith"),
        ("Dr. Smith", "Smith"),  # a titled surname is not every Smith of the dataset
        ("Jane Smith", "Jane Q. Smith"),
    ],
)
def test_different_people_keep_different_keys(a: str, b: str) -> None:
    assert entity_key(a) != entity_key(b)


def test_titles_and_suffixes_are_set_apart_only_for_people() -> None:
    core = name_core("Dr. Martin Luther King Jr.")
    assert (core.tokens, core.title, core.suffix) == (("martin", "luther", "king"), "dr", "jr")
    assert entity_key("Dr Pepper", "PRODUCT") == "dr pepper"
    assert entity_key("Saint Louis", "PLACE") == "saint louis"
    assert entity_key("U.S.", "PLACE") == entity_key("US", "PLACE")
    # Values fold case and spaces only: "$5.00" is not "$500".
    assert entity_key("$5.00", "MONEY") != entity_key("$500", "MONEY")
    assert name_core("Dr.").tokens == ("dr",)


def test_display_name_drops_a_person_s_titles_when_a_full_name_remains() -> None:
    assert display_name("Dr. Jane Smith") == "Jane Smith"
    assert display_name("Dr. Smith") == "Dr. Smith"
    assert display_name("General Motors", "ORGANIZATION") == "General Motors"


def test_entity_ids_follow_the_key_so_documents_meet_on_one_node() -> None:
    dataset = stable_id("dataset", "resolution")
    assert entity_id(dataset, "Dr. Jane Smith", "PERSON") == entity_id(
        dataset, "Jane Smith", "person"
    )
    assert entity_id(dataset, "Jane Smith", "PERSON") != entity_id(
        dataset, "Jane Smith", "ORGANIZATION"
    )


def test_text_words_fold_like_names() -> None:
    assert text_words("Where did Beyoncé's U.S. tour start?") == [
        "where",
        "did",
        "beyonce",
        "us",
        "tour",
        "start",
    ]


# -- grouping ---------------------------------------------------------------------------------


def test_surname_first_name_and_title_join_the_full_name() -> None:
    assert groups("Dr. Jane Smith", "Smith", "Jane", "Dr. Smith") == [
        ["Dr. Jane Smith", "Smith", "Jane", "Dr. Smith"]
    ]


def test_middle_names_and_initials() -> None:
    assert groups("John Fitzgerald Kennedy", "John F. Kennedy", "Kennedy") == [
        ["John Fitzgerald Kennedy", "John F. Kennedy", "Kennedy"]
    ]
    assert groups("Jane Smith", "J. Smith") == [["Jane Smith", "J. Smith"]]
    assert groups("Sergei Aleksandrovich Kornilenko", "Sergei Kornilenko") == [
        ["Sergei Aleksandrovich Kornilenko", "Sergei Kornilenko"]
    ]


def test_case_accent_and_punctuation_variants_group_for_every_type() -> None:
    assert groups("Lunda Norte", "Lunda-Norte", "LUNDA NORTE", type_="PLACE") == [
        ["Lunda Norte", "Lunda-Norte", "LUNDA NORTE"]
    ]
    assert groups("Almería", "Almeria", type_="PLACE") == [["Almería", "Almeria"]]


def test_people_sharing_a_surname_in_one_document_stay_apart() -> None:
    assert groups("John Smith", "Mary Smith", "Smith") == [
        ["John Smith"],
        ["Mary Smith"],
        ["Smith"],
    ]
    assert groups("Bernard Alane", "Annick Alane") == [["Bernard Alane"], ["Annick Alane"]]


def test_people_sharing_a_first_name_stay_apart() -> None:
    assert groups("Robert Tannahill", "Robert Burns", "Robert") == [
        ["Robert Tannahill"],
        ["Robert Burns"],
        ["Robert"],
    ]


def test_father_and_son_stay_apart_and_the_bare_name_joins_neither() -> None:
    assert groups("Martin Luther King Jr.", "Martin Luther King Sr.", "King") == [
        ["Martin Luther King Jr."],
        ["Martin Luther King Sr."],
        ["King"],
    ]
    assert groups("Martin Luther King Jr.", "Martin Luther King", "King") == [
        ["Martin Luther King Jr.", "Martin Luther King", "King"]
    ]


def test_two_kings_of_one_name_stay_apart() -> None:
    assert groups("Nicholas II", "Nicholas I", "Nicholas") == [
        ["Nicholas II"],
        ["Nicholas I"],
        ["Nicholas"],
    ]
    assert groups("Nicholas II", "Grand Duke Nicholas", "Nicholas") == [
        ["Nicholas II"],
        ["Grand Duke Nicholas"],
        ["Nicholas"],
    ]


def test_titles_of_another_gender_stay_apart() -> None:
    assert groups("Mr. Smith", "Mrs. Smith", "Smith") == [
        ["Mr. Smith"],
        ["Mrs. Smith"],
        ["Smith"],
    ]
    assert groups("John Smith", "Mrs. Smith") == [["John Smith", "Mrs. Smith"]]


def test_a_short_name_joins_no_fuller_name_with_other_middle_names() -> None:
    # "George Bush" could be either president; the two presidents are two people.
    assert groups("George H. W. Bush", "George W. Bush", "George Bush") == [
        ["George H. W. Bush"],
        ["George W. Bush"],
        ["George Bush"],
    ]


def test_a_short_form_refers_back_only() -> None:
    # The speaker "Melanie" first, a misread "Woohoo Melanie" later: the speaker is not renamed.
    assert groups("Melanie", "Woohoo Melanie") == [["Melanie"], ["Woohoo Melanie"]]


def test_a_misread_one_word_place_joins_the_person_but_a_known_place_does_not() -> None:
    mentions = [("Wes Craven", "PERSON"), ("Craven", "PLACE"), ("Washington", "PLACE")]
    found = group_mentions([*mentions, ("George Washington", "PERSON")])
    assert [(g.type, g.names) for g in found] == [
        ("PERSON", ("Wes Craven", "Craven")),
        ("PLACE", ("Washington",)),
        ("PERSON", ("George Washington",)),
    ]


def test_types_never_mix_otherwise() -> None:
    found = group_mentions([("Jane Smith", "PERSON"), ("Jane Smith", "ORGANIZATION")])
    assert [g.type for g in found] == ["PERSON", "ORGANIZATION"]


# -- whole documents --------------------------------------------------------------------------


def test_resolve_document_renames_across_chunks_and_relations_follow() -> None:
    first = ChunkExtraction(
        entities=[ExtractedEntity("Dr. Jane Smith", "PERSON"), ExtractedEntity("Boston", "PLACE")],
        relations=[ExtractedRelation("Dr. Jane Smith", "lives_in", "Boston")],
    )
    second = ChunkExtraction(
        entities=[
            ExtractedEntity("Smith", "PERSON"),
            ExtractedEntity("Mayo Clinic", "ORGANIZATION"),
        ],
        relations=[ExtractedRelation("Smith", "works_for", "Mayo Clinic")],
    )
    out = resolve_document([first, second])
    assert [(e.name, e.aliases) for e in out[0].entities] == [
        ("Jane Smith", ("Dr. Jane Smith", "Smith")),
        ("Boston", ()),
    ]
    assert out[1].entities[0].name == "Jane Smith"
    assert out[1].relations == [ExtractedRelation("Jane Smith", "works_for", "Mayo Clinic")]
    assert first.entities[0].name == "Dr. Jane Smith"  # the input is not changed


def test_an_entity_named_twice_in_a_chunk_appears_once() -> None:
    chunk = ChunkExtraction(
        entities=[ExtractedEntity("Marie Curie", "PERSON"), ExtractedEntity("Curie", "PERSON")],
        relations=[ExtractedRelation("Marie Curie", "met", "Curie")],
    )
    [out] = resolve_document([chunk])
    assert [(e.name, e.aliases) for e in out.entities] == [("Marie Curie", ("Curie",))]
    assert out.relations == []  # no self-loop


def test_the_offline_extractor_reports_aliases() -> None:
    result = HeuristicExtractor().extract_one(
        "Dr. Jane Smith joined the Mayo Clinic in 2010. Smith studied in Boston. Jane likes tennis."
    )
    people = [e for e in result.entities if e.type == "PERSON"]
    assert [(e.name, set(e.aliases)) for e in people] == [("Jane Smith", {"Smith", "Jane"})]
    assert ("Jane Smith", "Boston") in {(r.source, r.target) for r in result.relations}


def test_a_chat_speaker_is_never_a_short_form() -> None:
    session = "Caroline: Woohoo Melanie! I passed the interview.\nMelanie: Congrats, Caroline!"
    speakers = chat_speakers([session])
    assert speakers == {"Caroline", "Melanie"}
    assert groups("Woohoo Melanie", "Melanie") == [["Woohoo Melanie", "Melanie"]]
    found = group_mentions([("Woohoo Melanie", "PERSON"), ("Melanie", "PERSON")], speakers=speakers)
    assert [g.names for g in found] == [("Woohoo Melanie",), ("Melanie",)]
    people = [
        e.name for e in HeuristicExtractor().extract_one(session).entities if e.type == "PERSON"
    ]
    assert "Melanie" in people
