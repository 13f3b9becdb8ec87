"""Extraction grounded in an ontology: any extractor's entities take the ontology's types and
canonical names, and the ontology's known individuals are found in the text.

For each chunk, after the wrapped extractor (the LLM's or the offline one) ran:

1. an extracted entity whose name matches an ontology individual takes the individual's name
   and its class as type ("audi r8" -> "Audi R8", type "CAR"); one whose type matches an
   ontology class takes the class's name as type; relations follow the renaming;
2. every individual whose name occurs in the chunk text (whole words, any case) and was not
   extracted is added, with its class as type: the offline extractor finds the ontology's
   vocabulary too;
3. the ontology's object properties between individuals of the same chunk become relations
   (``Audi -produces-> Audi R8``).

``mode="strict"`` (cognee's ``ontology_mode``) keeps only entities grounded in the ontology.

A table row's graph (:mod:`engramdb.ingest.tables`) is grounded the same way, and reaches
further (``reach=True``): an individual the row names brings the ontology's relations to any
individual, with that individual (a row "Alice, Engineering" gains ``Alice -in_node_set->
Female`` from an ontology that says so).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal
from uuid import UUID

from engramdb.errors import EngramValidationError
from engramdb.extract.types import (
    ChunkExtraction,
    ExtractedEntity,
    ExtractedRelation,
    Extractor,
    Usage,
)
from engramdb.ontology.resolver import OntologyResolver, OntologyTerm, key_of

__all__ = ["OntologyMode", "ground", "ground_given", "grounded_extractor", "name_patterns"]

OntologyMode = Literal["annotate", "strict"]


def _type_of(name: str) -> str:
    """An ontology class name as an entity type (engramdb's types are upper-case)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)  # CarManufacturer -> Car_Manufacturer
    return re.sub(r"\W+", "_", spaced).strip("_").upper() or "CONCEPT"


class _Grounded(Extractor):
    def __init__(
        self, inner: Extractor | None, resolver: OntologyResolver, mode: OntologyMode
    ) -> None:
        self.inner = inner
        self.resolver = resolver
        self.mode = mode
        self.name = f"{inner.name if inner else 'none'}+ontology"
        self._patterns = name_patterns(resolver)

    async def extract(self, texts: Sequence[str]) -> list[ChunkExtraction]:
        found = await self.inner.extract(texts) if self.inner else [ChunkExtraction()] * len(texts)
        return [self.ground(t, e) for t, e in zip(texts, found, strict=True)]

    async def extract_with_usage(
        self, texts: Sequence[str], *, data_id: UUID | None = None
    ) -> tuple[list[ChunkExtraction], Usage]:
        if self.inner is None:
            return await self.extract(texts), Usage()
        found, usage = await self.inner.extract_with_usage(texts, data_id=data_id)
        return [self.ground(t, e) for t, e in zip(texts, found, strict=True)], usage

    async def extract_documents(
        self, documents: Sequence[tuple[UUID | None, Sequence[str]]]
    ) -> tuple[list[list[ChunkExtraction]], Usage]:
        if self.inner is None:
            return [await self.extract(texts) for _, texts in documents], Usage()
        found, usage = await self.inner.extract_documents(documents)
        grounded = [
            [self.ground(t, e) for t, e in zip(texts, doc, strict=True)]
            for (_, texts), doc in zip(documents, found, strict=True)
        ]
        return grounded, usage

    def ground(
        self, text: str, extraction: ChunkExtraction, *, reach: bool = False
    ) -> ChunkExtraction:
        return ground(
            self.resolver, text, extraction, mode=self.mode, patterns=self._patterns, reach=reach
        )


def ground(
    resolver: OntologyResolver,
    text: str,
    extraction: ChunkExtraction,
    *,
    mode: OntologyMode = "annotate",
    patterns: list[tuple[OntologyTerm, re.Pattern[str]]] | None = None,
    reach: bool = False,
) -> ChunkExtraction:
    """One chunk's extraction grounded in the ontology (see the module docstring); with
    ``reach``, the relations of its individuals to individuals it does not name come too."""
    entities: dict[str, ExtractedEntity] = {}  # by lower-cased final name
    renamed: dict[str, str] = {}
    grounded: set[str] = set()
    for entity in extraction.entities:
        term = resolver.term(entity.name, "individuals")
        name, kind = entity.name, entity.type
        if term is not None:
            name, kind = term.name, _type_of(term.classes[0]) if term.classes else kind
        else:
            cls = resolver.term(entity.type, "classes")
            if cls is not None:
                kind = _type_of(cls.name)
        renamed[entity.name] = name
        if term is not None or kind != entity.type:
            grounded.add(name.lower())
        entities.setdefault(
            name.lower(), ExtractedEntity(name, kind, entity.description, entity.aliases)
        )
    present: list[OntologyTerm] = []
    for term, pattern in name_patterns(resolver) if patterns is None else patterns:
        if pattern.search(text):
            present.append(term)
            grounded.add(term.name.lower())
            kind = _type_of(term.classes[0]) if term.classes else "CONCEPT"
            entities.setdefault(term.name.lower(), ExtractedEntity(term.name, kind))
    if mode == "strict":
        entities = {k: v for k, v in entities.items() if k in grounded}
    relations = [
        ExtractedRelation(
            renamed.get(r.source, r.source), r.relation, renamed.get(r.target, r.target)
        )
        for r in extraction.relations
    ]
    by_key = {key_of(t.name): t for t in resolver.lookup["individuals"].values()}
    here = {key_of(n) for n in entities}
    for source, relation, target in resolver.relations:
        s, t = by_key.get(source), by_key.get(target)
        if s is None or t is None or key_of(s.name) not in here:
            continue
        if reach and key_of(t.name) not in here:
            kind = _type_of(t.classes[0]) if t.classes else "CONCEPT"
            entities.setdefault(t.name.lower(), ExtractedEntity(t.name, kind))
            grounded.add(t.name.lower())
        elif key_of(t.name) not in here:
            continue
        relations.append(ExtractedRelation(s.name, relation, t.name))
    names = {e.name.lower() for e in entities.values()}
    kept = [r for r in relations if r.source.lower() in names and r.target.lower() in names]
    unique = list(dict.fromkeys(kept))
    return ChunkExtraction(
        entities=list(entities.values()),
        relations=unique,
        summary=extraction.summary,
        source=extraction.source or "ontology",
    )


def ground_given(
    extractor: Extractor | None, text: str, extraction: ChunkExtraction
) -> ChunkExtraction:
    """A table row's graph grounded (``reach=True``) in the ontology of ``extractor``, when it
    is a grounded one (:func:`grounded_extractor`); unchanged otherwise."""
    if not isinstance(extractor, _Grounded):
        return extraction
    return extractor.ground(text, extraction, reach=True)


def name_patterns(resolver: OntologyResolver) -> list[tuple[OntologyTerm, re.Pattern[str]]]:
    """Each individual with the pattern that finds its name in a text (whole words)."""
    return [
        (term, re.compile(rf"(?<!\w){re.escape(term.name)}(?!\w)", re.IGNORECASE))
        for term in resolver.lookup["individuals"].values()
    ]


def grounded_extractor(
    inner: Extractor | None, resolver: OntologyResolver | None, mode: str | None = None
) -> Extractor | None:
    """``inner`` grounded in ``resolver`` (``inner`` itself without an ontology)."""
    if resolver is None or resolver.is_empty():
        return inner
    chosen = mode or "annotate"
    if chosen not in ("annotate", "strict"):
        raise EngramValidationError(f"ontology_mode must be 'annotate' or 'strict', got {mode!r}")
    return _Grounded(inner, resolver, chosen)  # type: ignore[arg-type]
