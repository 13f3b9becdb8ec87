"""``cognee.modules.ontology.ontology_config``: the ``config`` dicts cognify and remember take."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["Config", "OntologyConfig"]


class OntologyConfig(TypedDict, total=False):
    """``ontology_resolver``: an RDFLibOntologyResolver; ``ontology_mode``: ``"annotate"``
    (the default: ground what matches) or ``"strict"`` (keep only grounded entities)."""

    ontology_resolver: Any
    ontology_mode: str | None


class Config(TypedDict, total=False):
    """``{"ontology_config": {...}}``."""

    ontology_config: OntologyConfig | None
