"""Ontologies: ground extraction in a local OWL/RDF file (the ``ontology`` extra, rdflib).

``cognify(ontology_file_path="cars.owl")``, or cognee's ``config={"ontology_config":
{"ontology_resolver": RDFLibOntologyResolver(ontology_file=...)}}`` on ``cognify`` and
``remember``: the extracted entities take the ontology's classes as types and its individuals'
names as canonical names, and the individuals named in the text are found by every extractor
(see :mod:`engramdb.ontology.grounding`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engramdb.errors import EngramValidationError, FeatureNotAvailableError
from engramdb.ontology.grounding import grounded_extractor
from engramdb.ontology.resolver import FuzzyMatchingStrategy, MatchingStrategy, OntologyResolver

if TYPE_CHECKING:
    from engramdb.settings import Settings

__all__ = [
    "FuzzyMatchingStrategy",
    "MatchingStrategy",
    "OntologyResolver",
    "grounded_extractor",
    "resolve_ontology",
]


def resolve_ontology(
    config: object, ontology_file_path: str | None, settings: Settings | None = None
) -> tuple[OntologyResolver | None, str | None]:
    """The ontology and its mode a cognify()/remember() call names: ``ontology_file_path``
    (one path, or several separated by commas) first, else ``config["ontology_config"]``, else
    the ``ONTOLOGY_FILE_PATH`` / ``ONTOLOGY_MODE`` settings. Any other key of ``config`` is
    refused (FeatureNotAvailableError)."""
    if ontology_file_path is None and config is None and settings is not None:
        if settings.ontology_file_path:
            resolver, _ = resolve_ontology(None, settings.ontology_file_path)
            return resolver, settings.ontology_mode
        return None, None
    if ontology_file_path is not None:
        if not isinstance(ontology_file_path, str) or not ontology_file_path.strip():
            raise EngramValidationError("ontology_file_path must be a path to an OWL/RDF file")
        paths = [p.strip() for p in ontology_file_path.split(",") if p.strip()]
        return OntologyResolver(paths if len(paths) > 1 else paths[0]), None
    if config is None:
        return None, None
    if not isinstance(config, Mapping):
        raise EngramValidationError("config must be a dict such as {'ontology_config': {...}}")
    other = sorted(set(config) - {"ontology_config"})
    if other:
        raise FeatureNotAvailableError(
            f"config keys {other} are not available on engramdb; config takes "
            "'ontology_config' (other settings: engramdb.config or environment variables)"
        )
    section: Any = config.get("ontology_config")
    if section is None:
        return None, None
    if not isinstance(section, Mapping):
        raise EngramValidationError("config['ontology_config'] must be a dict")
    resolver = section.get("ontology_resolver")
    mode = section.get("ontology_mode")
    if resolver is not None and not isinstance(resolver, OntologyResolver):
        raise FeatureNotAvailableError(
            f"ontology_resolver {type(resolver).__name__} is not available on engramdb; use "
            "RDFLibOntologyResolver(ontology_file=...) (engramdb.ontology.OntologyResolver)"
        )
    return resolver, mode
