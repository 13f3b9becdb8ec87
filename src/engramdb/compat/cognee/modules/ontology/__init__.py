"""``cognee.modules.ontology``: ground extraction in a local OWL/RDF file (engramdb.ontology)."""
