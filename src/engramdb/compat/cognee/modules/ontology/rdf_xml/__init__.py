"""``cognee.modules.ontology.rdf_xml``: ``RDFLibOntologyResolver``."""

from engramdb.ontology.resolver import OntologyResolver as RDFLibOntologyResolver

__all__ = ["RDFLibOntologyResolver"]
