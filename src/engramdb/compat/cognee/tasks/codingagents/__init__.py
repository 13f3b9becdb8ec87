"""``cognee.tasks.codingagents``: coding rules drawn from developer conversations (a package;
the task is in ``coding_rule_associations``)."""
