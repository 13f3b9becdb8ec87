"""Coding rules drawn from developer conversations, as a pipeline task (cognee's
``cognee.tasks.codingagents.coding_rule_associations``).

:func:`add_rule_associations` sends a conversation (a text, or a list of texts joined) and the
rules already stored under a node set to the configured LLM, which answers with the new rules
the conversation states; each becomes a :class:`Rule` node tagged with that node set, written
by :func:`~engramdb.add_data_points` into the pipeline's dataset. So rules are weighted,
searchable (``SearchType.CODING_RULES`` with ``node_name=[set]`` lists them; CHUNKS finds their
text) and forgotten with their dataset, like every other node.

A rule's id derives from its set and its text (whitespace and case folded), so a rule the LLM
repeats, in the same run or a later one, is stored once. cognee also links each rule to the
chunk most similar to the conversation (``rule_associated_from``); engramdb does not write that
edge (a rule is its own data item, and an edge into another item's chunk would outlive that
chunk's ``forget``).
"""

from __future__ import annotations

import re
from typing import Any
from uuid import NAMESPACE_OID, UUID, uuid5

from pydantic import BaseModel, Field

from engramdb.errors import CogneeValidationError, LLMNotConfiguredError
from engramdb.models.datapoints import DataPoint, MetaData
from engramdb.pipelines.run_info import PipelineContext
from engramdb.pipelines.runner import DEFAULT_DATASET, current_context

__all__ = [
    "RULE_SYSTEM_PROMPT",
    "Rule",
    "RuleSet",
    "add_rule_associations",
    "get_existing_rules",
    "rule_id",
]

#: The most stored rules of one set shown to the LLM as already known.
MAX_EXISTING_RULES = 500

RULE_SYSTEM_PROMPT = (
    "You extract coding rules from conversations between software developers. A coding rule "
    "is a standing instruction about how code is written, reviewed, tested or released (for "
    "example a style guide, a review requirement, a release restriction). Answer with every "
    "rule the conversation states, each as one short imperative sentence in the speakers' own "
    "terms. Leave out rules already in the list of known rules, and anything that is not a "
    "rule. When the conversation states no new rule, answer with an empty list."
)


class Rule(DataPoint):
    """A single developer rule extracted from text."""

    text: str = Field(..., description="The coding rule associated with the conversation")
    belongs_to_set: list[DataPoint] | list[str] | None = None
    metadata: MetaData = {"index_fields": ["text"]}  # noqa: RUF012 - a pydantic field


class RuleSet(DataPoint):
    """Collection of parsed rules."""

    rules: list[Rule] = Field(
        ...,
        description="List of developer rules extracted from the input text. Each rule "
        "represents a coding best practice or guideline.",
    )


class _RuleText(BaseModel):
    text: str = Field(..., description="One coding rule, as one short imperative sentence")


class _ExtractedRules(BaseModel):
    """What the LLM answers: only the rules' texts (the nodes' bookkeeping is ours)."""

    rules: list[_RuleText] = Field(
        ..., description="The new coding rules stated in the conversation"
    )


def _folded(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def rule_id(rules_nodeset_name: str, text: str) -> UUID:
    """The id of the rule ``text`` in the set ``rules_nodeset_name`` (case and spacing folded)."""
    return uuid5(NAMESPACE_OID, f"coding_rule:{rules_nodeset_name}:{_folded(text)}")


async def get_existing_rules(
    rules_nodeset_name: str, *, ctx: PipelineContext | None = None
) -> list[str]:
    """The texts of the rules stored under ``rules_nodeset_name`` in the dataset of ``ctx``
    (or of the pipeline this call runs in; outside one, the default user's main_dataset), in
    storage order; ``[]`` when the dataset does not exist yet."""
    from engramdb.access.permissions import own_dataset
    from engramdb.engine import get_engine

    running = ctx or current_context()
    engine = get_engine()
    dataset = getattr(running, "dataset", None) if running is not None else None
    dataset_id = getattr(dataset, "id", dataset)
    if not isinstance(dataset_id, UUID):
        owner = await engine.resolve_user(getattr(running, "user", None))
        name = dataset_id if isinstance(dataset_id, str) else DEFAULT_DATASET
        record = await own_dataset(engine.store, owner, name)
        if record is None:
            return []
        dataset_id = record.id
    nodes = await engine.store.list_nodes(
        [dataset_id], type=Rule.__name__, limit=MAX_EXISTING_RULES * 4
    )
    texts = [
        n.text
        for n in nodes
        if n.text and rules_nodeset_name in (n.properties.get("node_set") or [])
    ]
    return texts[:MAX_EXISTING_RULES]


def _user_prompt(chat: str, existing: list[str]) -> str:
    known = "\n".join(f"- {rule}" for rule in existing) or "(none yet)"
    return f"Known rules:\n{known}\n\nConversation context:\n{chat}"


async def add_rule_associations(
    data: str | list[str],
    rules_nodeset_name: str,
    user_prompt_location: str = "coding_rule_association_agent_user.txt",
    system_prompt_location: str = "coding_rule_association_agent_system.txt",
    ctx: PipelineContext | None = None,
) -> list[Rule]:
    """Extract the coding rules ``data`` states (with the configured LLM) and store the new ones
    as :class:`Rule` nodes in the node set ``rules_nodeset_name``; return the rules stored.

    ``user_prompt_location`` / ``system_prompt_location`` name cognee's prompt files; engramdb
    uses its own prompt (:data:`RULE_SYSTEM_PROMPT`) and accepts only those default names.
    Raises LLMNotConfiguredError without an LLM, LLMOutputError when its answer does not fit."""
    if user_prompt_location != "coding_rule_association_agent_user.txt" or (
        system_prompt_location != "coding_rule_association_agent_system.txt"
    ):
        raise CogneeValidationError(
            "add_rule_associations: custom prompt files are not supported on engramdb (it uses "
            "its own rule-extraction prompt); leave user_prompt_location and "
            "system_prompt_location at their defaults"
        )
    if not isinstance(rules_nodeset_name, str) or not rules_nodeset_name.strip():
        raise CogneeValidationError("add_rule_associations: rules_nodeset_name must be a name")
    chat = " ".join(str(d) for d in data) if isinstance(data, list) else str(data)
    if not chat.strip():
        return []
    from engramdb.engine import get_engine
    from engramdb.pipelines.storage import add_data_points

    llm = get_engine().llm
    if llm is None:
        raise LLMNotConfiguredError(
            "add_rule_associations extracts rules with an LLM and none is configured: set "
            "LLM_API_KEY (and LLM_ENDPOINT / LLM_MODEL for another OpenAI-compatible server)"
        )
    existing = await get_existing_rules(rules_nodeset_name, ctx=ctx)
    messages: list[Any] = [
        {"role": "system", "content": RULE_SYSTEM_PROMPT},
        {"role": "user", "content": _user_prompt(chat, existing)},
    ]
    extracted, _ = await llm.structured(messages, _ExtractedRules)
    known = {_folded(t) for t in existing}
    rules: dict[UUID, Rule] = {}
    for item in extracted.rules:
        text = re.sub(r"\s+", " ", item.text).strip()
        if not text or _folded(text) in known:
            continue
        ident = rule_id(rules_nodeset_name, text)
        rules.setdefault(ident, Rule(id=ident, text=text, belongs_to_set=[rules_nodeset_name]))
    if not rules:
        return []
    stored = list(rules.values())
    await add_data_points(stored, ctx=ctx)
    return stored
