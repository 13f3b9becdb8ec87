"""Subject–verb–object relations inside one sentence, without a parser.

The sentence is read left to right as a sequence of mentions and classified tokens. Each
clause (split at "but", "while", ";", "because"...) has a subject: the entity mentions before
its first verb (coordinated with "and" or commas), a resolved pronoun ("I" → the chat
speaker), or — when the clause starts with its verb ("..., but later settled in Lisbon") —
the previous clause's subject. Every entity or concept after the verb becomes an object; the
relation name is the verb's lemma (its participle in the passive: "born", "founded"), any
words between verb and object ("appointed chief executive of"), and the preposition before
the object: ``born_in``, ``settle_in``, ``move_to``, ``serve_as_president_of``.

Negated verb groups ("never moved", "didn't go") yield nothing: a wrong edge is worse for
retrieval than a missing one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engramdb.extract.heuristic.classify import (
    PARTICLES,
    SPEAKER_PRONOUNS,
    THIRD_PERSON,
    Item,
    Verb,
    guess_lemma,
    items,
    relation_name,
)
from engramdb.extract.heuristic.gazetteer import PLACE_REGION_SUFFIXES, PLACES_REGIONS
from engramdb.extract.heuristic.lexicon import BE_FORMS, PARTICIPLES, PREPOSITIONS, VERB_LEMMAS
from engramdb.extract.heuristic.mentions import Mention
from engramdb.extract.heuristic.text import Token

__all__ = ["Triple", "extract_relations"]

#: (source key, relation name, target key)
Triple = tuple[str, str, str]
_TEMPORAL = frozenset({"DATE", "TIME"})
_SUBJECT_TYPES = frozenset({"PERSON", "PLACE", "ORGANIZATION", "EVENT", "WORK", "PRODUCT"})
_THING_PRONOUNS = frozenset({"it", "it's", "its", "they", "they're", "they've"})
_GREETINGS = frozenset({"hey", "hi", "hello", "dear", "thanks", "congrats", "yo", "bye"})
_NAMING_VERBS = frozenset({"called", "named", "titled", "entitled"})
_MAX_EXTRA_WORDS = 2


@dataclass(slots=True)
class _Pattern:
    verbs: list[Verb]
    extras: list[str]
    prep: str | None
    negated: bool


@dataclass(slots=True)
class _Clause:
    subject: list[str] | None = None
    explicit: bool = False
    group: list[str] = field(default_factory=list)
    group_open: bool = False
    locked: bool = False
    after_comma: bool = False
    pre_prep: str | None = None
    phase: str = "pre"
    verbs: list[Verb] = field(default_factory=list)
    be_seen: bool = False
    negated: bool = False
    prep: str | None = None
    extras: list[str] = field(default_factory=list)
    objects_since_verb: int = 0
    last_obj: Mention | None = None
    last_pattern: _Pattern | None = None
    last_emitted: list[Triple] = field(default_factory=list)
    since_obj: list[str] = field(default_factory=list)
    #: Kinds of the items read since the verb group ended (to tell "is a painter" from
    #: "I'm sure the importance of ... is").
    since_verb: list[str] = field(default_factory=list)
    fronted: list[tuple[Mention, str]] = field(default_factory=list)
    deferred: list[tuple[Mention, _Pattern]] = field(default_factory=list)


def extract_relations(
    tokens: list[Token],
    mentions: list[Mention],
    *,
    speaker: str | None,
    resolve_he_she: str | None,
    resolve_it: str | None,
    type_of: Callable[[str], str],
    carry: list[str] | None = None,
) -> tuple[list[Triple], list[Mention], str | None, str | None]:
    """Relations of one sentence (as entity keys), the concept mentions used as objects (to
    be emitted as CONCEPT entities), and what a following "he"/"she" and "it" resolve to:
    the last single PERSON subject and the last single other subject."""
    if tokens and tokens[-1].text == "?":
        return [], [], resolve_he_she, resolve_it  # questions state no facts
    sequence = items(tokens, mentions)
    walker = _Walker(sequence, speaker, resolve_he_she, resolve_it, type_of)
    walker.carry = carry
    walker.run()
    used = {key for triple in walker.triples for key in (triple[0], triple[2])}
    concepts = [m for m in walker.promoted if m.key in used]
    return walker.triples, concepts, walker.last_person, walker.last_thing


class _Walker:
    """Reads one sentence's items left to right, clause by clause (see the module doc); each
    ``_on_<kind>`` method handles one kind of item."""

    def __init__(
        self,
        items: list[Item],
        speaker: str | None,
        he_she: str | None,
        it: str | None,
        type_of: Callable[[str], str],
    ) -> None:
        self.items = items
        self.speaker = speaker
        self.he_she = he_she
        self.type_of = type_of
        self.promoted: list[Mention] = []
        self.triples: list[Triple] = []
        self.last_person: str | None = he_she
        self.last_thing: str | None = it
        self.c = _Clause()
        self.carry: list[str] | None = None

    # -- driving ----------------------------------------------------------------------------
    def run(self) -> None:
        depth = 0
        for idx, item in enumerate(self.items):
            if item.kind == "open":
                depth += 1
                continue
            if item.kind == "close":
                depth = max(0, depth - 1)
                continue
            if depth:
                continue  # "(Russian: ...; born 1989)": an aside, not part of the clause
            handler = getattr(self, f"_on_{item.kind.lower()}", None)
            if handler is not None:
                handler(idx, item)
            if item.kind in ("verb", "aux"):
                self.c.since_verb = []
            elif item.kind != "adv" or self.c.since_verb:
                self.c.since_verb.append(item.kind)
        self._end_clause()

    def _next_kind(self, idx: int) -> str:
        """Kind of the next item that is not an adverb (parenthetical asides skipped)."""
        depth = 0
        for k in range(idx + 1, len(self.items)):
            kind = self.items[k].kind
            if kind == "open":
                depth += 1
            elif kind == "close":
                depth = max(0, depth - 1)
            elif not depth and kind != "adv":
                return kind
        return ""

    def _prev_kinds(self, idx: int, count: int) -> list[str]:
        """Kinds of up to ``count`` previous items that are not adverbs, nearest first."""
        out: list[str] = []
        depth = 0
        for k in range(idx - 1, -1, -1):
            kind = self.items[k].kind
            if kind == "close":
                depth += 1
            elif kind == "open":
                depth = max(0, depth - 1)
            elif not depth and kind != "adv":
                out.append(kind)
                if len(out) == count:
                    break
        return out

    def _prev_kind(self, idx: int) -> str:
        kinds = self._prev_kinds(idx, 1)
        return kinds[0] if kinds else ""

    def _end_clause(self) -> None:
        c = self.c
        self._flush_fronted()
        if c.subject:
            self.carry = c.subject
        self.c = _Clause()

    # -- subjects ---------------------------------------------------------------------------
    def _resolve_pronoun(self, low: str) -> str | None:
        if low in SPEAKER_PRONOUNS:
            return self.speaker
        if low in THIRD_PERSON:
            return self.last_person
        return None

    def _set_subject(self, subject: list[str] | None) -> None:
        c = self.c
        c.subject = subject
        if subject and len(subject) == 1:
            if self._person_like(subject[0]):
                self.last_person = subject[0]
            elif subject[0] != self.speaker:
                self.last_thing = subject[0]
        if subject and c.deferred:
            for mention, pattern in c.deferred:
                self._emit(subject, mention, pattern)
            c.deferred = []

    def _person_like(self, key: str) -> bool:
        return key == self.speaker or self.type_of(key) == "PERSON"

    def is_subject_type(self, m: Mention) -> bool:
        """Named entities can be subjects; dates, numbers and concepts cannot."""
        return m.kind == "entity" and self.type_of(m.key) in _SUBJECT_TYPES

    def _start_verb_group(self) -> None:
        """Leaving the subject phase: fix the clause subject."""
        c = self.c
        if c.phase != "pre":
            return
        if c.group:
            self._set_subject(list(c.group))
        elif not c.explicit:
            c.subject = self.carry
        c.phase = "verb"

    # -- token handlers ---------------------------------------------------------------------
    def _on_m(self, idx: int, item: Item) -> None:
        m = item.mention
        assert m is not None
        c = self.c
        if c.locked:
            return
        if c.phase == "pre":
            self._mention_pre(idx, m)
            return
        c.phase = "post"
        nxt = self._next_kind(idx)
        if m.possessive and nxt in ("word", "M"):
            return  # a modifier: "Caroline's house"
        vocative = self._prev_kind(idx) == "comma" and nxt in ("break", "")
        if vocative and self.type_of(m.key) == "PERSON":
            return  # "Totally agree, Mel."
        subject_next = nxt in ("verb", "aux") and self.is_subject_type(m)
        if subject_next and "comma" in c.since_obj:
            c.group, c.group_open = [m.key], False  # "Born in Ulm, Albert Einstein worked"
            return
        self._object(m)
        if subject_next:
            c.group = [m.key]  # "expected Leicester City to win ..."

    def _mention_pre(self, idx: int, m: Mention) -> None:
        c = self.c
        if m.kind == "concept" and c.pre_prep is None:
            if not c.group_open:
                c.group = []
            c.explicit = True
            return
        if c.pre_prep is not None:
            if not c.group and not c.explicit:
                c.fronted.append((m, c.pre_prep))
            c.pre_prep = None
            return
        if not self.is_subject_type(m):
            return
        if idx and self.items[idx - 1].token is not None:
            prev = self.items[idx - 1].token
            if prev is not None and prev.lower in _GREETINGS:
                return  # a vocative: "Hey Jolene, how was ..."
        if m.possessive and self._next_kind(idx) in ("word", "M"):
            c.explicit = True
            c.group, c.group_open = [], False
            return
        if c.group_open or not c.group:
            c.group.append(m.key)
        else:
            c.group = [m.key]
        c.group_open = False
        c.explicit = True

    def _object(self, m: Mention) -> None:
        c = self.c
        if c.last_obj is not None and c.since_obj[:1] == ["comma"] and self._located(c.last_obj, m):
            self.triples.append((c.last_obj.key, "located_in", m.key))
            c.since_obj = []
            return
        coordinated = (
            bool(c.since_obj)
            and all(k in ("coord", "comma", "det", "naming") for k in c.since_obj)
            and any(k in ("coord", "comma", "naming") for k in c.since_obj)
        )
        if coordinated and c.last_pattern is not None:
            pattern = c.last_pattern
        else:
            if c.last_obj is not None and not c.extras and self._attaches_to_noun(c.last_obj):
                self._noun_attachment(m)
                return
            extras = list(c.extras)
            if c.prep is None:
                while extras and extras[-1] not in PREPOSITIONS:
                    extras.pop()  # appositive: "married the painter Diego Rivera"
            if len([w for w in extras if w not in PREPOSITIONS]) > _MAX_EXTRA_WORDS:
                pattern = _Pattern([], [], None, True)
            else:
                pattern = _Pattern(list(c.verbs) or self._copula(), extras, c.prep, c.negated)
        c.last_emitted = []
        copula_object = (
            pattern.prep is None
            and not pattern.extras
            and [v.lemma for v in pattern.verbs] == ["be"]
        )
        if copula_object and any(k != "det" for k in c.since_verb):
            # "I'm sure the importance of ... is", "be a great night featuring LGBTQ artists"
            pattern = _Pattern([], [], None, True)
        if c.subject:
            self._emit(c.subject, m, pattern)
        elif c.subject is None and not c.explicit:
            c.deferred.append((m, pattern))
        c.last_obj, c.last_pattern = m, pattern
        c.prep, c.extras, c.since_obj = None, [], []
        c.objects_since_verb += 1

    def _located(self, previous: Mention, m: Mention) -> bool:
        """ "Paris, Texas" / "Stanford, California": a place then its region."""
        if previous.kind != "entity" or m.kind != "entity":
            return False
        if previous.fixed_type or m.fixed_type:
            return False
        words = m.key.split()
        return m.key in PLACES_REGIONS or (len(words) > 1 and words[-1] in PLACE_REGION_SUFFIXES)

    def _noun_attachment(self, m: Mention) -> None:
        """ "the capital of Japan": fold the concept into the relation name."""
        c = self.c
        obj, pattern = c.last_obj, c.last_pattern
        assert obj is not None
        prep = c.prep or "of"
        c.prep = None
        if obj.kind != "concept" or pattern is None or not c.last_emitted:
            return
        for triple in c.last_emitted:
            if triple in self.triples:
                self.triples.remove(triple)
        if obj in self.promoted:
            self.promoted.remove(obj)
        head = obj.key.split()[-1]
        noun_pattern = _Pattern(
            pattern.verbs,
            [*pattern.extras, *([pattern.prep] if pattern.prep else []), head],
            prep,
            pattern.negated,
        )
        subject = c.subject
        c.last_emitted = []
        if subject:
            self._emit(subject, m, noun_pattern)
        c.last_obj, c.last_pattern = m, noun_pattern
        c.since_obj = []

    def _attaches_to_noun(self, obj: Mention) -> bool:
        """Whether the pending preposition after object ``obj`` modifies it rather than the
        verb: "the capital of Japan", "the border with Kenya", "a novel by Amy Ellis Nutt";
        but "founded in 1755 by Lomonosov" attaches "by" to the verb."""
        prep = self.c.prep
        if prep == "of":
            return True
        if obj.kind == "concept":
            return prep in ("by", "with")
        return prep == "by" and self.type_of(obj.key) in ("WORK", "PRODUCT")

    def _copula(self) -> list[Verb]:
        return [Verb("is", "be", False)] if self.c.be_seen else []

    def _emit(self, subject: list[str], m: Mention, pattern: _Pattern) -> None:
        if pattern.negated or not pattern.verbs:
            return
        if m.fixed_type in _TEMPORAL and pattern.prep is None:
            return
        if m.kind == "concept" and m not in self.promoted:
            self.promoted.append(m)
        for verb in pattern.verbs:
            name = relation_name(verb, pattern.extras, pattern.prep, m.kind == "concept")
            if not name:
                continue
            for s in subject:
                if s != m.key:
                    triple = (s, name, m.key)
                    self.triples.append(triple)
                    self.c.last_emitted.append(triple)

    def _flush_fronted(self) -> None:
        c = self.c
        if not c.fronted or not c.subject or not c.verbs:
            return
        for m, prep in c.fronted:
            self._emit(c.subject, m, _Pattern(list(c.verbs), [], prep, c.negated))
        c.fronted = []

    def _verb_token(self, idx: int, item: Item) -> None:
        tok = item.token
        assert tok is not None
        c = self.c
        low = tok.lower
        if c.phase == "post" and low in _NAMING_VERBS and c.last_obj is not None:
            c.since_obj = ["naming"]  # "a bakery called Sweet Crumbs"
            return
        lemma = VERB_LEMMAS.get(low) or guess_lemma(low)
        fronted = c.phase == "pre" and not c.group and not c.explicit and self.carry is None
        participle = (low in PARTICIPLES and low != lemma) or (
            low not in VERB_LEMMAS and low.endswith("ed")
        )
        passive = (c.be_seen or c.after_comma or fronted) and participle
        verb = Verb(low, lemma, passive)
        coordinated = self._coordinated_verb(idx)
        if c.phase == "pre":
            self._start_verb_group()
            c.verbs = [verb]
        elif c.phase == "verb":
            if coordinated and c.verbs:
                c.verbs.append(verb)
            elif c.verbs and lemma == low and self._prev_kind(idx) == "verb":
                # A base form right after a main verb is its object: "taking care of",
                # "stay present for".
                self._on_word(idx, item)
            else:
                c.verbs = [verb]
        else:  # post: a new verb group, perhaps with a new subject
            self._flush_fronted()
            if c.group and not c.group_open:
                self._set_subject(list(c.group))
                c.group = []
            if coordinated and c.objects_since_verb == 0 and c.verbs:
                c.verbs.append(verb)
            else:
                c.verbs = [verb]
                c.negated = False
            c.phase = "verb"
            c.extras, c.prep, c.objects_since_verb = [], None, 0
            c.last_obj, c.last_pattern, c.since_obj = None, None, []

    def _coordinated_verb(self, idx: int) -> bool:
        """ "born and raised": the previous items are a coordinator and a verb (not a list
        "running, reading, or playing", whose verbs do not share the last one's object)."""
        return self._prev_kinds(idx, 2) == ["coord", "verb"]

    def _on_verb(self, idx: int, item: Item) -> None:
        if not self.c.locked:
            self._verb_token(idx, item)

    def _on_aux(self, idx: int, item: Item) -> None:
        c = self.c
        tok = item.token
        assert tok is not None
        if c.locked:
            return
        if c.phase == "pre":
            self._start_verb_group()
        elif c.phase == "post":
            self._flush_fronted()
            if c.group:
                self._set_subject(list(c.group))
                c.group = []
            c.phase = "verb"
            c.verbs, c.be_seen, c.negated = [], False, False
            c.extras, c.prep, c.objects_since_verb = [], None, 0
            c.last_obj, c.last_pattern, c.since_obj = None, None, []
        if tok.lower in BE_FORMS:
            c.be_seen = True
        if tok.lower.endswith("n't"):
            c.negated = True

    def _on_neg(self, idx: int, item: Item) -> None:
        del idx, item
        self.c.negated = True

    def _on_pron(self, idx: int, item: Item) -> None:
        tok = item.token
        assert tok is not None
        c = self.c
        if c.locked:
            return
        low = tok.lower
        resolved = self._resolve_pronoun(low)
        if resolved is None and low in _THING_PRONOUNS:
            if c.subject and len(c.subject) == 1:
                if not self._person_like(c.subject[0]):
                    resolved = c.subject[0]  # "Acme said it would acquire ..."
            elif c.phase == "pre" and not c.group and self.speaker is None:
                # "MSU ... . It was founded in 1755". Not in chat, where "it" is mostly the
                # activity just talked about ("It's like bliss for me").
                resolved = self.last_thing
        nxt = self._next_kind(idx)
        if c.phase == "pre":
            if resolved is not None:
                if c.group_open or not c.group:
                    c.group.append(resolved)
                else:
                    c.group = [resolved]
            else:
                c.group = [] if not c.group_open else c.group
            c.group_open = False
            c.explicit = True
            if "'" in low:  # "I'm", "she's": the verb group starts here
                self._start_verb_group()
                if low.endswith(("'m", "'s", "'re")):
                    c.be_seen = True
            return
        if nxt in ("verb", "aux", "neg") or "'" in low:
            # A new subject inside the clause: "..., and it was", "Tom said she ..."
            self._flush_fronted()
            c.phase = "pre"
            c.group = [resolved] if resolved else []
            c.explicit = True
            c.group_open = False
            c.verbs, c.be_seen, c.negated = [], False, False
            c.extras, c.prep, c.objects_since_verb = [], None, 0
            c.last_obj, c.last_pattern, c.since_obj = None, None, []
            c.subject = None
            if "'" in low:
                self._start_verb_group()
                c.be_seen = low.endswith(("'m", "'s", "'re"))
            return
        if resolved is not None and low in ("me", "us") and c.subject:
            pseudo = Mention(0, 0, resolved, resolved, "entity")
            self._object(pseudo)

    def _on_prep(self, idx: int, item: Item) -> None:
        tok = item.token
        assert tok is not None
        c = self.c
        if c.locked:
            return
        low = tok.lower
        if c.phase == "pre":
            if c.group and not c.group_open:
                c.pre_prep = "_subject"  # "Lake Baikal in Siberia": modifies the subject
            elif c.pre_prep is not None and self._prev_kind(idx) == "prep":
                c.pre_prep = f"{c.pre_prep}_{low}"  # "As of August 2009, ..."
            else:
                c.pre_prep = low
            return
        if c.phase == "verb":
            c.phase = "post"
            if low in PARTICLES and self._next_kind(idx) not in ("M", "det") and c.verbs:
                c.verbs = [
                    Verb(v.surface + "_" + low, v.lemma + "_" + low, v.passive) for v in c.verbs
                ]
                return
        if c.last_obj is not None:
            c.since_obj.append("prep")
        if c.prep is not None and c.last_obj is None and self._prev_kind(idx) == "prep":
            c.prep = f"{c.prep}_{low}"  # "out of", "up to"
        else:
            c.prep = low

    def _on_particle(self, idx: int, item: Item) -> None:
        tok = item.token
        assert tok is not None
        c = self.c
        if c.phase == "verb" and c.verbs:
            c.verbs = [
                Verb(v.surface + "_" + tok.lower, v.lemma + "_" + tok.lower, v.passive)
                for v in c.verbs
            ]
            c.phase = "post"
        else:
            self._on_word(idx, item)

    def _on_det(self, idx: int, item: Item) -> None:
        del idx, item
        c = self.c
        if c.phase == "verb":
            c.phase = "post"
        if c.last_obj is not None:
            c.since_obj.append("det")

    def _on_word(self, idx: int, item: Item) -> None:
        tok = item.token
        assert tok is not None
        c = self.c
        if c.locked:
            return
        if c.phase == "pre":
            if c.pre_prep is not None:
                c.pre_prep = None
                return
            if not c.group_open:
                c.group = []
            c.explicit = True
            return
        if c.phase == "verb":
            c.phase = "post"
        if c.last_obj is not None:
            c.since_obj.append("word")
            c.prep = None  # the preposition's object was this word: "for mental health"
            return  # words after an object belong to it: "2.3 million new cases"
        if c.prep is not None:
            c.extras.append(c.prep)
            c.prep = None
        c.extras.append(tok.lower.replace("'", ""))

    def _on_comma(self, idx: int, item: Item) -> None:
        del item
        c = self.c
        if c.locked:
            c.locked = False
            return
        nxt = self._next_kind(idx)
        if c.phase == "pre":
            if c.group and nxt == "M":
                c.group_open = True
            elif c.group and nxt == "verb":
                c.after_comma = True  # "The University of Bologna, founded in 1088, ..."
            elif c.group and nxt in ("det", "word", "pron"):
                c.locked = True  # an appositive: "Mount Kilimanjaro, the highest ..., lies"
            c.pre_prep = None
            return
        if c.phase == "verb":
            c.phase = "post"
        c.since_obj.append("comma")

    def _on_coord(self, idx: int, item: Item) -> None:
        del idx, item
        c = self.c
        if c.locked:
            return
        if c.phase == "pre":
            c.group_open = True
            return
        c.since_obj.append("coord")

    def _on_break(self, idx: int, item: Item) -> None:
        tok = item.token
        assert tok is not None
        prior = self.c
        self._end_clause()
        antecedent = prior.last_obj
        if tok.lower in ("who", "which") and antecedent and self.is_subject_type(antecedent):
            self.c.group = [antecedent.key]
        del idx
