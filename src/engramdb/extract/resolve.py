"""Entity resolution: which mentions of a document name the same entity.

Two layers, both pure functions:

* **The name core** (:func:`name_core`): a name reduced to what identifies it — accents, case
  and punctuation folded ("U.S." = "US", "Jean-Paul" = "Jean Paul", "Beyoncé" = "Beyonce"),
  a leading article and a trailing possessive dropped, and for people the leading titles
  ("Dr.", "Mr.", "President") and trailing suffixes ("Jr.", "III", "PhD") set apart.
  :func:`entity_key` is the identity form built from it, from which entity ids derive, so
  "Dr. Jane Smith" in one document and "Jane Smith" in another are one node. A generational
  suffix stays in the key ("King Jr." is not "King Sr."), and so does the title of a
  one-word name ("Mr. Smith" is not "Mrs. Smith", nor every other "Smith").
* **Grouping** (:func:`group_mentions`, :func:`resolve_chunk`, :func:`resolve_document`):
  within one document, a person named in full once and later by surname, first name, title
  and surname or with a middle initial ("Dr. Jane Smith ... Smith ... Jane") is one entity
  whose other spellings become its ``aliases``.

Precision comes first — a wrong merge misleads every hop through the node, a missed one only
leaves two nodes: a short form joins a longer name only when exactly one longer name of the
document fits it ("Smith" next to "John Smith" and "Mary Smith" stays apart); generational
suffixes and gendered titles that disagree never merge; two full names merge only when one is
the other without its middle names, or with middle names spelled as initials ("George Bush"
next to both "George W. Bush" and "George H. W. Bush" joins neither). Surname and first-name
links are made within a document only; across documents only equal keys meet.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace

from engramdb.extract.heuristic.gazetteer import ORGANIZATIONS, PLACES, TITLES
from engramdb.extract.heuristic.lexicon import word_set
from engramdb.extract.heuristic.text import speaker_prefix
from engramdb.extract.types import ChunkExtraction, ExtractedEntity, ExtractedRelation

__all__ = [
    "GENERATIONAL_SUFFIXES",
    "MentionGroup",
    "NameCore",
    "chat_speakers",
    "display_name",
    "entity_key",
    "group_mentions",
    "name_core",
    "resolve_chunk",
    "resolve_document",
    "text_words",
]

#: Suffixes that tell a father from his son, or one king from another ("Nicholas I" /
#: "Nicholas II"): kept in the identity key.
GENERATIONAL_SUFFIXES = word_set(
    "jr sr junior senior i ii iii iv v vi vii viii ix x xi xii xiii xiv xv xvi xvii xviii"
)
#: Suffixes that say nothing about identity ("Jane Smith, PhD"): dropped.
_OTHER_SUFFIXES = word_set("phd md esq dds mba obe mbe kbe cbe")
_SUFFIXES = GENERATIONAL_SUFFIXES | _OTHER_SUFFIXES
_SUFFIX_CANON = {"junior": "jr", "senior": "sr"}
_MALE_TITLES = word_set(
    "mr mister sir lord king prince duke emperor father brother uncle grandpa grandfather papa"
)
_FEMALE_TITLES = word_set(
    "mrs ms miss madam madame dame lady queen princess duchess empress sister aunt auntie "
    "grandma grandmother granny nana"
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
#: A trailing possessive: "Smith's" → "Smith", "Charles'" → "Charles".
_POSSESSIVE = re.compile(r"['’]s$|(?<=s)['’]$", re.IGNORECASE)
#: Token separators: whitespace, commas, hyphens, slashes ("Smith, Jr.", "Jean-Paul").
_SPLIT = re.compile(r"[\s,/‐-―-]+")
#: Dropped inside a token: "U.S." → "us", "O'Brien" → "obrien".
_INNER = re.compile(r"[.'’`]")
_NOT_WORD = re.compile(r"[^\w&+#]+")
_PERSON = "PERSON"
#: Types a one-word name may have been misread as (see :attr:`_Group.misread`).
_MISREAD_TYPES = frozenset({"PLACE", "ORGANIZATION"})
#: Types whose names are values: only case and spaces fold ("$5.00" is not "$500").
_VALUE_TYPES = frozenset({"DATE", "TIME", "MONEY", "NUMBER"})


@dataclass(frozen=True, slots=True)
class NameCore:
    """A name reduced for identity. ``tokens`` are its folded words without titles and
    suffixes; ``title`` the normalised leading titles ("dr"), ``suffix`` a generational
    suffix ("jr"), both only for people."""

    tokens: tuple[str, ...]
    title: str = ""
    suffix: str = ""

    @property
    def key(self) -> str:
        """The identity form: the tokens, the suffix after them, and the title before a
        one-word name without a suffix ("dr smith", "martin luther king jr", "jane smith",
        "nicholas ii")."""
        parts = list(self.tokens)
        if self.title and len(parts) == 1 and not self.suffix:
            parts.insert(0, self.title)
        if self.suffix:
            parts.append(self.suffix)
        return " ".join(parts)

    @property
    def gender(self) -> str:
        """ "m", "f" or "" as the titles say ("Mr." / "Mrs.")."""
        words = set(self.title.split())
        if words & _MALE_TITLES:
            return "m"
        if words & _FEMALE_TITLES:
            return "f"
        return ""


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    return "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()


_EDGE = " .,:;!?\"'()[]{}“”‘’«»*_"


def _word(raw: str) -> str:
    return _NOT_WORD.sub("", _INNER.sub("", raw))


def _tokens(name: str) -> list[str]:
    text = _ARTICLE.sub("", " ".join(name.split()))
    text = _POSSESSIVE.sub("", text.strip(_EDGE))
    return [w for w in (_word(raw) for raw in _SPLIT.split(_fold(text))) if w]


def text_words(text: str) -> list[str]:
    """The words of running text folded as name tokens are (accents, case, inner dots and
    apostrophes, a possessive per word: "Beyoncé's U.S. tour" → beyonce, us, tour), so a
    name's :attr:`NameCore.tokens` can be looked for in it."""
    return list(_text_words(text))


@functools.lru_cache(maxsize=1024)
def _text_words(text: str) -> tuple[str, ...]:
    # Cached: graph ranking looks for every entity of a subgraph in the same question.
    words = (_POSSESSIVE.sub("", raw.strip(_EDGE)) for raw in _SPLIT.split(_fold(text)))
    return tuple(w for w in (_word(raw) for raw in words) if w)


@functools.lru_cache(maxsize=8192)
def name_core(name: str, type_: str = _PERSON) -> NameCore:
    """The :class:`NameCore` of ``name``; titles and suffixes are set apart only for
    ``type_`` PERSON ("Dr Pepper" the drink, "Saint Louis" the city keep every word), and
    never down to nothing ("Dr." alone stays "dr")."""
    if type_.upper() in _VALUE_TYPES:
        return NameCore(tuple(_fold(name).split()))
    tokens = _tokens(name)
    if type_.upper() != _PERSON:
        return NameCore(tuple(tokens))
    titles: list[str] = []
    while len(tokens) > 1 and tokens[0] in TITLES:
        titles.append(tokens.pop(0))
    suffix = ""
    while len(tokens) > 1 and tokens[-1] in _SUFFIXES:
        last = tokens.pop()
        if last in GENERATIONAL_SUFFIXES and not suffix:
            suffix = _SUFFIX_CANON.get(last, last)
    return NameCore(tuple(tokens), " ".join(titles), suffix)


def entity_key(name: str, type_: str = _PERSON) -> str:
    """The identity form of an entity name of type ``type_`` (see :class:`NameCore.key`);
    empty when the name has no word at all."""
    return name_core(name, type_).key


def display_name(name: str, type_: str = _PERSON) -> str:
    """``name`` with the leading titles of a person dropped when at least two words remain
    ("Dr. Jane Smith" → "Jane Smith"; "Dr. Smith" stays), spaces collapsed, case kept."""
    words = name.split()
    if type_.upper() == _PERSON:
        skip = 0
        while len(words) - skip > 2 and _fold(words[skip]).strip(".") in TITLES:
            skip += 1
        if skip and len(name_core(" ".join(words[skip:]), type_).tokens) >= 2:
            words = words[skip:]
    return " ".join(words)


# -- grouping ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MentionGroup:
    """Mentions of one entity: its ``type`` and the ``(surface, type)`` mentions, the one to
    name it by first (a mention's own type differs when a misread one-word name joins a
    person: "Craven" read as a PLACE in "contributions from Craven")."""

    type: str
    mentions: tuple[tuple[str, str], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s for s, _ in self.mentions))


@dataclass(slots=True)
class _Group:
    type: str
    #: Position of the first mention in the document.
    first: int
    #: (surface, type, core) of every member, first mention first.
    members: list[tuple[str, str, NameCore]] = field(default_factory=list)

    @property
    def head(self) -> tuple[str, NameCore]:
        """The fullest member: most words, then a suffix, then most letters, then first."""
        surface, _, core = max(
            self.members,
            key=lambda m: (len(m[2].tokens), bool(m[2].suffix), len("".join(m[2].tokens))),
        )
        return surface, core

    @property
    def misread(self) -> bool:
        """A one-word place or organisation that no gazetteer knows: typed by a weak cue
        ("from Kurt"), so it may be a person of the document."""
        _, core = self.head
        return (
            self.type in _MISREAD_TYPES
            and len(core.tokens) == 1
            and core.tokens[0] not in PLACES
            and core.tokens[0] not in ORGANIZATIONS
        )


def _same_token(short: str, long: str) -> bool:
    return short == long or (len(short) == 1 and long.startswith(short))


def _fits(short: NameCore, long: NameCore) -> bool:
    """Whether the person name ``short`` may be a shorter way of writing ``long``: its one
    word is the first or last of ``long`` (not an initial); or first and last words agree
    (initials allowed) and ``short`` has no middle names, or the same ones."""
    s, t = short.tokens, long.tokens
    if not s or len(s) > len(t) or s == t:
        return False
    if len(s) == 1:
        return len(s[0]) > 1 and s[0] in (t[0], t[-1])
    if not (_same_token(s[0], t[0]) and _same_token(s[-1], t[-1])):
        return False
    # "Jane Smith" / "J. Smith" for "Jane Q. Smith"; "John F. Kennedy" for "John Fitzgerald
    # Kennedy"; never "George W. Bush" for "George H. W. Bush".
    return len(s) == 2 or (
        len(s) == len(t) and all(_same_token(a, b) for a, b in zip(s, t, strict=True))
    )


def _conflicts(core: NameCore, group: _Group) -> bool:
    """Whether ``core`` names someone else than a member of ``group``: another generation
    ("Jr." / "Sr.") or, by the titles, another gender ("Mr." / "Mrs.")."""
    for _, _, other in group.members:
        if core.suffix and other.suffix and core.suffix != other.suffix:
            return True
        if core.gender and other.gender and core.gender != other.gender:
            return True
    return False


def _joins(group: _Group, target: _Group) -> bool:
    """Whether the person ``group`` may be a shorter way of naming the fuller ``target``."""
    _, core = group.head
    _, head = target.head
    if core.tokens != head.tokens and not _fits(core, head):
        return False
    return not any(_conflicts(c, target) for _, _, c in group.members)


def group_mentions(
    mentions: Iterable[tuple[str, str]], *, speakers: Collection[str] = ()
) -> list[MentionGroup]:
    """Group the entity mentions ``(surface, type)`` of one document, in first-mention
    order; each group is one entity. Equal keys of one type always group (case, punctuation,
    accents, titles before a full name); a person's group joins a fuller person named before
    it when it fits exactly one of them (see the module doc), and so does a one-word place or
    organisation no gazetteer knows (the extractor's type was a guess). Other mentions of
    different types never group. ``speakers`` (a chat's "Name:" prefixes) name themselves:
    never another name's short form ("Melanie" is not a misread "Woohoo Melanie")."""
    own = {name_core(name).key for name in speakers}
    by_key: dict[tuple[str, str], _Group] = {}
    seen: dict[tuple[str, str], int] = {}
    for position, (surface, type_) in enumerate(mentions):
        type_ = type_.upper()
        core = name_core(surface, type_)
        if not core.tokens:
            continue
        seen.setdefault((surface, type_), position)
        group = by_key.setdefault((type_, core.key), _Group(type_, position))
        if all(s != surface for s, _, _ in group.members):
            group.members.append((surface, type_, core))
    groups = list(by_key.values())
    # Fullest first, so a short form meets every full name before it is placed: a suffixed
    # name before the bare one ("King" next to "King Jr." and "King Sr." joins neither), a
    # spelled-out name before its initials ("Jane Smith", then "J. Smith").
    persons = sorted(
        (g for g in groups if g.type == _PERSON or g.misread),
        key=lambda g: (
            -len(g.head[1].tokens),
            g.type != _PERSON,
            not g.head[1].suffix,
            -len("".join(g.head[1].tokens)),
        ),
    )
    kept: list[_Group] = []
    for group in persons:
        if group.type == _PERSON and group.head[1].key in own:
            kept.append(group)
            continue
        targets = [t for t in kept if _joins(group, t)]
        # A short form refers back to a name given before it ("Melanie: ..." and later a
        # misread "Woohoo Melanie" is no reason to rename the speaker).
        if len(targets) == 1 and targets[0].first < group.first:
            targets[0].members.extend(group.members)
            group.members = []
        elif group.type == _PERSON:
            kept.append(group)
    out: list[MentionGroup] = []
    for group in groups:
        if group.members:
            head, _ = group.head
            ordered = sorted(group.members, key=lambda m: (m[0] != head, seen[(m[0], m[1])]))
            out.append(MentionGroup(group.type, tuple((s, t) for s, t, _ in ordered)))
    return out


def chat_speakers(texts: Iterable[str]) -> set[str]:
    """The speakers of chat lines ("Melanie: ...") in ``texts``."""
    found: set[str] = set()
    for text in texts:
        for line in text.split("\n"):
            name, _ = speaker_prefix(line)
            if name is not None:
                found.add(name)
    return found


def resolve_chunk(
    extraction: ChunkExtraction, *, speakers: Collection[str] = ()
) -> ChunkExtraction:
    """``extraction`` with its entities grouped: :func:`resolve_document` of one chunk."""
    return resolve_document([extraction], speakers=speakers)[0]


def resolve_document(
    extractions: Sequence[ChunkExtraction], *, speakers: Collection[str] = ()
) -> list[ChunkExtraction]:
    """The chunk extractions of one document with the entities that name the same thing
    renamed to one name per group (its fullest spelling, a person's titles dropped: "Jane
    Smith") and their other spellings in ``aliases``; relations follow their endpoints, and an
    entity a chunk lists twice after renaming appears once. ``speakers`` as for
    :func:`group_mentions`. Deterministic; the input is not changed."""
    mentions: list[tuple[str, str]] = []
    for extraction in extractions:
        for entity in extraction.entities:
            mentions.append((entity.name, entity.type))
            mentions.extend((alias, entity.type) for alias in entity.aliases)
    canonical: dict[tuple[str, str], tuple[str, str]] = {}
    spellings: dict[tuple[str, str], tuple[str, ...]] = {}
    for group in group_mentions(mentions, speakers=speakers):
        name = display_name(group.names[0], group.type)
        for mention in group.mentions:
            canonical[mention] = (name, group.type)
        spellings[(name, group.type)] = tuple(s for s in group.names if s != name)
    return [_rename(e, canonical, spellings) for e in extractions]


def _rename(
    extraction: ChunkExtraction,
    canonical: dict[tuple[str, str], tuple[str, str]],
    spellings: dict[tuple[str, str], tuple[str, ...]],
) -> ChunkExtraction:
    entities: dict[tuple[str, str], ExtractedEntity] = {}
    renamed: dict[str, str] = {}
    for entity in extraction.entities:
        slot = canonical.get((entity.name, entity.type.upper()), (entity.name, entity.type))
        name, type_ = slot
        renamed.setdefault(entity.name, name)
        if slot not in entities:
            aliases = spellings.get(slot, entity.aliases)
            entities[slot] = replace(entity, name=name, type=type_, aliases=aliases)
    relations: list[ExtractedRelation] = []
    seen: set[tuple[str, str, str]] = set()
    for relation in extraction.relations:
        source = renamed.get(relation.source, relation.source)
        target = renamed.get(relation.target, relation.target)
        triple = (source, relation.relation, target)
        if source != target and triple not in seen:
            seen.add(triple)
            relations.append(replace(relation, source=source, target=target))
    return replace(extraction, entities=list(entities.values()), relations=relations)
