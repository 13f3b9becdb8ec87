"""``cognee.modules.ontology.rdf_xml``: ``RDFLibOntologyResolver``."""

from .RDFLibOntologyResolver import RDFLibOntologyResolver

__all__ = ["RDFLibOntologyResolver"]
