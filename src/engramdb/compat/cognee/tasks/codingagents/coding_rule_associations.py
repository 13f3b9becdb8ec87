"""``cognee.tasks.codingagents.coding_rule_associations``: ``add_rule_associations`` (a memify /
pipeline task storing the coding rules a conversation states as ``Rule`` nodes of a node set),
over :mod:`engramdb.pipelines.coding_rules`."""

from engramdb.pipelines.coding_rules import (
    Rule,
    RuleSet,
    add_rule_associations,
    get_existing_rules,
)

__all__ = ["Rule", "RuleSet", "add_rule_associations", "get_existing_rules"]
