"""One chunk through the heuristic extractor: sentences → mentions → types → relations.

Two passes over the sentences: the first collects every mention and sums its type votes per
identity key (so "Andreas" is typed by the strongest cue anywhere in the chunk, the same way
every time), the second walks each sentence for relations with those types known.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engramdb.extract.heuristic.assemble import EntityDraft, describe, finalize
from engramdb.extract.heuristic.lexicon import VERB_LEMMAS
from engramdb.extract.heuristic.mentions import Mention, find_mentions
from engramdb.extract.heuristic.names import best_type, name_key
from engramdb.extract.heuristic.relations import Triple, extract_relations
from engramdb.extract.heuristic.text import Sentence, split_sentences
from engramdb.extract.summaries import extractive_summary
from engramdb.extract.types import ChunkExtraction

__all__ = ["NAMED_TYPES", "extract_chunk"]

#: Types that may be a relation's subject and take part in co-occurrence edges.
NAMED_TYPES = frozenset({"PERSON", "PLACE", "ORGANIZATION", "EVENT", "WORK", "PRODUCT"})
_SPEAKER_VOTE = 10.0


@dataclass(slots=True)
class _Entry:
    name: str
    first: int
    sentence: int
    fixed_type: str | None = None
    votes: dict[str, float] = field(default_factory=dict)
    count: int = 0
    acronym: bool = False
    type: str = ""


def extract_chunk(
    text: str,
    *,
    max_entities: int,
    max_relations: int,
    cooccurrence: bool = False,
    descriptions: bool = True,
    summary_sentences: int = 2,
    summary_chars: int = 400,
) -> ChunkExtraction:
    """Entities, relations and an extractive summary of one chunk (see the package doc)."""
    sentences = split_sentences(text)
    lower_seen = {t.lower for s in sentences for t in s.tokens if t.text.islower()}
    registry: dict[str, _Entry] = {}
    per_sentence: list[list[Mention]] = []
    for idx, sentence in enumerate(sentences):
        if sentence.speaker:
            key = name_key(sentence.speaker)
            entry = _register(registry, key, sentence.speaker, sentence.start - 1, idx)
            entry.votes["PERSON"] = entry.votes.get("PERSON", 0.0) + _SPEAKER_VOTE
        mentions = find_mentions(sentence, text, lower_seen)
        per_sentence.append(mentions)
        for m in mentions:
            if m.kind != "entity":
                continue
            entry = _register(registry, m.key, m.name, sentence.tokens[m.start].start, idx)
            entry.fixed_type = entry.fixed_type or m.fixed_type
            entry.acronym = entry.acronym or m.acronym
            for type_, weight in m.votes.items():
                entry.votes[type_] = entry.votes.get(type_, 0.0) + weight
    for key, entry in registry.items():
        entry.type = entry.fixed_type or best_type(entry.votes, key.split(), acronym=entry.acronym)

    triples: list[Triple] = []
    concept_counts: Counter[str] = Counter(
        m.key for ms in per_sentence for m in ms if m.kind == "concept"
    )
    he_she: str | None = None
    it: str | None = None
    for idx, (sentence, mentions) in enumerate(zip(sentences, per_sentence, strict=True)):
        speaker = name_key(sentence.speaker) if sentence.speaker else None
        found, concepts, he_she, it = extract_relations(
            sentence.tokens,
            mentions,
            speaker=speaker,
            resolve_he_she=he_she,
            resolve_it=it,
            type_of=lambda key: registry[key].type if key in registry else "",
            carry=[speaker] if speaker and _first_person_start(sentence) else None,
        )
        triples.extend(found)
        for m in concepts:
            _register_concept(registry, m, sentence, idx)
        for m in mentions:
            if m.kind == "concept" and concept_counts[m.key] > 1:
                _register_concept(registry, m, sentence, idx)
        if cooccurrence:
            triples.extend(_cooccurrence(mentions, registry, found))
    drafts = [
        EntityDraft(
            e.name,
            e.type,
            e.first,
            e.count,
            describe(_sentence_text(text, sentences[e.sentence])) if descriptions else "",
        )
        for e in registry.values()
    ]
    named = {key: e.name for key, e in registry.items()}
    relations = [(named[s], rel, named[t]) for s, rel, t in triples if s in named and t in named]
    return finalize(
        drafts,
        relations,
        max_entities=max_entities,
        max_relations=max_relations,
        summary=extractive_summary(text, max_sentences=summary_sentences, max_chars=summary_chars),
        source="heuristic",
        speakers={sentence.speaker for sentence in sentences if sentence.speaker},
    )


def _register(registry: dict[str, _Entry], key: str, name: str, pos: int, idx: int) -> _Entry:
    entry = registry.get(key)
    if entry is None:
        entry = registry[key] = _Entry(name, pos, idx)
    entry.count += 1
    return entry


def _register_concept(
    registry: dict[str, _Entry], m: Mention, sentence: Sentence, idx: int
) -> None:
    entry = registry.get(m.key)
    if entry is None:
        registry[m.key] = _Entry(
            m.name, sentence.tokens[m.start].start, idx, "CONCEPT", count=1, type="CONCEPT"
        )
    elif entry.type == "CONCEPT":
        entry.count += 1


def _cooccurrence(
    mentions: list[Mention], registry: dict[str, _Entry], found: list[Triple]
) -> list[Triple]:
    """``mentioned_with`` between named entities of one sentence not already related."""
    keys: list[str] = []
    for m in mentions:
        entry = registry.get(m.key)
        named = m.kind == "entity" and entry is not None and entry.type in NAMED_TYPES
        if named and m.key not in keys:
            keys.append(m.key)
    related = {(s, t) for s, _, t in found} | {(t, s) for s, _, t in found}
    return [
        (a, "mentioned_with", b)
        for i, a in enumerate(keys)
        for b in keys[i + 1 :]
        if (a, b) not in related
    ]


def _first_person_start(sentence: Sentence) -> bool:
    """A chat message opening with a finite verb ("Lost my job", "Got $500", "Gonna try")
    has the speaker as its unstated subject; one opening with "-ing" usually does not
    ("Taking care of ourselves is vital")."""
    first = next((t for t in sentence.tokens if t.is_word), None)
    if first is None:
        return False
    low = first.lower
    if low in ("gonna", "wanna", "gotta", "just", "finally", "really", "also", "still"):
        return True
    lemma = VERB_LEMMAS.get(low)
    return lemma is not None and not low.endswith(("ing", "s"))


def _sentence_text(text: str, sentence: Sentence) -> str:
    return text[sentence.start : sentence.end]
