"""``cognee.modules.ontology.rdf_xml.RDFLibOntologyResolver``: engramdb's ontology resolver
(``RDFLibOntologyResolver(ontology_file=path or [paths], matching_strategy=None)``)."""

from engramdb.ontology.resolver import OntologyResolver as RDFLibOntologyResolver

__all__ = ["RDFLibOntologyResolver"]
