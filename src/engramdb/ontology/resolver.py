"""An OWL/RDF ontology read from local files: its classes, its named individuals, and the
object properties between them (rdflib, the ``ontology`` extra).

Names are compared as cognee compares them: an URI's local name (after ``#``, else the last
path segment), lower-cased, spaces as ``_``; a name matches exactly or, failing that, by the
matching strategy (difflib, similarity >= 0.8). An individual's display name is its
``rdfs:label``, else its local name with ``_`` as spaces ("Audi_R8" -> "Audi R8").
"""

from __future__ import annotations

import difflib
import logging
import os
import warnings
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import IO, Any

from engramdb.errors import EngramValidationError, FeatureNotAvailableError

__all__ = [
    "FuzzyMatchingStrategy",
    "MatchingStrategy",
    "OntologyResolver",
    "OntologyTerm",
    "key_of",
]

logger = logging.getLogger(__name__)

_INSTALL = "pip install 'engramdb[ontology]'"


def key_of(name: str) -> str:
    """The lookup key of a name: lower case, spaces as ``_`` (cognee's normalisation)."""
    return name.strip().lower().replace(" ", "_")


class MatchingStrategy(ABC):
    """How an extracted name finds its ontology name among the candidates (all keys)."""

    @abstractmethod
    def find_match(self, name: str, candidates: list[str]) -> str | None: ...


class FuzzyMatchingStrategy(MatchingStrategy):
    """Exact key first, else the closest key with difflib similarity >= ``cutoff``."""

    def __init__(self, cutoff: float = 0.8) -> None:
        self.cutoff = cutoff

    def find_match(self, name: str, candidates: list[str]) -> str | None:
        if name in candidates:
            return name
        found = difflib.get_close_matches(name, candidates, n=1, cutoff=self.cutoff)
        return found[0] if found else None


@dataclass(frozen=True, slots=True)
class OntologyTerm:
    """A class or an individual of the ontology."""

    uri: str
    #: The name shown in the graph (rdfs:label, else the local name with spaces).
    name: str
    #: For an individual: the display names of its classes (first one is its entity type).
    classes: tuple[str, ...] = ()


@dataclass(slots=True)
class _Lookup:
    classes: dict[str, OntologyTerm] = field(default_factory=dict)
    individuals: dict[str, OntologyTerm] = field(default_factory=dict)
    #: (source key, property local name, target key) between individuals.
    relations: list[tuple[str, str, str]] = field(default_factory=list)


def _rdflib() -> Any:
    try:
        import rdflib
    except ImportError:
        raise FeatureNotAvailableError(
            f"ontologies are read with rdflib, which is not installed: {_INSTALL}"
        ) from None
    return rdflib


class OntologyResolver:
    """The ontology of ``ontology_file``: a path, a list of paths, a file object or a list of
    file objects (RDF/XML, Turtle, N-Triples, JSON-LD: the format is guessed from the content).
    A path that does not exist is skipped with a warning (as in cognee); a file that cannot be
    parsed is an EngramValidationError naming it. ``lookup`` holds ``classes`` and
    ``individuals`` by key, ``find_closest_match(name, "classes" | "individuals")`` the key a
    name matches (or None)."""

    def __init__(
        self,
        ontology_file: str | os.PathLike[str] | IO[Any] | list[Any] | None = None,
        matching_strategy: MatchingStrategy | None = None,
    ) -> None:
        self.ontology_file = ontology_file
        self.matching_strategy = matching_strategy or FuzzyMatchingStrategy()
        self._data = _Lookup()
        sources = [] if ontology_file is None else _as_list(ontology_file)
        if not sources:
            return
        rdflib = _rdflib()
        graph = rdflib.Graph()
        loaded = 0
        for source in sources:
            if isinstance(source, str | os.PathLike):
                path = os.fspath(source)
                if not os.path.exists(path):
                    warnings.warn(
                        f"ontology file {path!r} not found; it is skipped",
                        UserWarning,
                        stacklevel=3,
                    )
                    continue
                try:
                    graph.parse(path, format=rdflib.util.guess_format(path) or "xml")
                except Exception as exc:  # rdflib raises many parser-specific types
                    raise EngramValidationError(
                        f"cannot read the ontology file {path!r}: {exc}"
                    ) from exc
            else:
                try:
                    graph.parse(data=source.read(), format=None)
                except Exception as exc:
                    raise EngramValidationError(
                        f"cannot read the ontology file object: {exc}"
                    ) from exc
            loaded += 1
        if loaded:
            self._data = _build(rdflib, graph)
            logger.info(
                "ontology: %d classes, %d individuals",
                len(self._data.classes),
                len(self._data.individuals),
            )

    @property
    def lookup(self) -> dict[str, dict[str, OntologyTerm]]:
        return {"classes": self._data.classes, "individuals": self._data.individuals}

    @property
    def relations(self) -> list[tuple[str, str, str]]:
        return list(self._data.relations)

    def is_empty(self) -> bool:
        return not self._data.classes and not self._data.individuals

    def find_closest_match(self, name: str, category: str) -> str | None:
        candidates = list(self.lookup.get(category, {}))
        return self.matching_strategy.find_match(key_of(name), candidates) if candidates else None

    def term(self, name: str, category: str) -> OntologyTerm | None:
        """The class or individual ``name`` matches, or None."""
        key = self.find_closest_match(name, category)
        return None if key is None else self.lookup[category][key]

    def build_lookup(self) -> None:
        """Kept for cognee's interface: the lookup is built when the files are read."""

    def refresh_lookup(self) -> None:
        """Kept for cognee's interface: the lookup is built when the files are read."""


def _as_list(source: Any) -> list[Any]:
    if isinstance(source, list | tuple):
        return list(source)
    if isinstance(source, str | os.PathLike) or hasattr(source, "read"):
        return [source]
    raise EngramValidationError(
        "ontology_file must be a path, a list of paths, a file object or a list of file objects,"
        f" got {type(source).__name__}"
    )


def _local(uri: object) -> str:
    text = str(uri)
    return text.split("#")[-1] if "#" in text else text.rstrip("/").split("/")[-1]


def _build(rdflib: Any, graph: Any) -> _Lookup:
    rdf, rdfs, owl = rdflib.RDF, rdflib.RDFS, rdflib.OWL
    labels: dict[str, str] = {}
    for subject, _, label in graph.triples((None, rdfs.label, None)):
        labels.setdefault(str(subject), str(label))

    def shown(uri: object) -> str:
        return labels.get(str(uri)) or _local(uri).replace("_", " ")

    class_uris = {str(c) for c in graph.subjects(rdf.type, owl.Class)}
    class_uris |= {str(c) for c in graph.subjects(rdf.type, rdfs.Class)}
    data = _Lookup()
    for uri in sorted(class_uris):
        data.classes[key_of(_local(uri))] = OntologyTerm(uri, shown(uri))
    members: dict[str, list[str]] = {}
    for subject, _, obj in graph.triples((None, rdf.type, None)):
        if str(obj) in class_uris and str(subject) not in class_uris:
            members.setdefault(str(subject), []).append(shown(obj))
    for uri, classes in sorted(members.items()):
        term = OntologyTerm(uri, shown(uri), tuple(sorted(set(classes))))
        data.individuals[key_of(_local(uri))] = term
    individuals = {t.uri: k for k, t in data.individuals.items()}
    for subject, predicate, obj in graph:
        source, target = individuals.get(str(subject)), individuals.get(str(obj))
        if source is not None and target is not None and predicate != rdf.type:
            data.relations.append((source, _snake(_local(predicate)), target))
    return data


def _snake(name: str) -> str:
    out: list[str] = []
    for index, char in enumerate(name):
        if char.isupper() and index and not name[index - 1].isupper():
            out.append("_")
        out.append(char.lower())
    return "".join(out).replace(" ", "_").replace("-", "_")
