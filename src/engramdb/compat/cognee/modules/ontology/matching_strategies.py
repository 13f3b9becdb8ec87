"""``cognee.modules.ontology.matching_strategies``."""

from engramdb.ontology.resolver import FuzzyMatchingStrategy, MatchingStrategy

__all__ = ["FuzzyMatchingStrategy", "MatchingStrategy"]
