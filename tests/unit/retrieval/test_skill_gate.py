"""The skill gate (R-REC-7; recall.md "Skill gate"): weighted regexes, negation, preconditions."""

from __future__ import annotations

from typing import Any

import pytest

from engramdb.models.search_type import SearchType
from engramdb.retrieval.skill_gate import (
    NEGATION_WINDOW,
    SKILL_RULES,
    THRESHOLD,
    matched_rules,
    should_run_skill_gate,
    skill_gate_fires,
    skill_gate_score,
)

# (query, fires) — every phrase the seed quotes, then our own.
CASES: list[tuple[str, bool]] = [
    # --- English phrasings the seed lists: each fires.
    ("how do I …", True),
    ("How do I rotate the API keys?", True),
    ("steps to …", True),
    ("What are the steps to restore a backup?", True),
    ("walk me through", True),
    ("Walk me through the release", True),
    ("playbook", True),
    ("incident playbook for outages", True),
    ("runbook", True),
    ("runbook for the database failover", True),
    ("checklist", True),
    ("pre-launch checklist", True),
    ("workflow", True),
    ("what is our hiring workflow", True),
    ("skill", True),
    ("which skills cover data cleaning", True),
    # --- Operational verbs the seed lists: too weak alone …
    ("set up", False),
    ("install", False),
    ("configure", False),
    ("deploy", False),
    ("migrate", False),
    ("troubleshoot", False),
    ("set up the staging server", False),
    ("install nginx", False),
    ("configure the proxy", False),
    ("deploy the service to production", False),
    ("migrate the database", False),
    ("troubleshoot the timeout", False),
    # … and they do not add up among themselves.
    ("install, configure and deploy the cluster", False),
    # … but count alongside a phrasing.
    ("how do I deploy the service", True),
    ("steps to migrate the database", True),
    ("how to deploy the service", True),  # "how to" is weak too; weak + weak = threshold
    ("how to", False),
    # --- English negation: not, n't, no, never, without, lack.
    ("not a playbook question", False),
    ("this is not how do I …", False),
    ("I don't want a checklist", False),
    ("no runbook please", False),
    ("never use the workflow", False),
    ("without any skill", False),
    ("lack of a playbook", False),
    ("Please don't walk me through it", False),
    ("I cannot find the playbook", False),
    # Word-bounded: these contain negator letters but are not negation words.
    ("notebook setup workflow", True),
    ("know the runbook", True),
    ("another checklist", True),
    ("nothing beats a checklist", True),
    # --- Chinese: interrogative followed closely by an operational verb.
    ("怎么配置 …", True),
    ("怎么配置", True),
    ("如何部署 …", True),
    ("如何部署", True),
    ("怎么排查这个报错", True),
    ("如何在生产环境中部署", True),
    ("怎样安装这个插件", True),
    ("怎么给 nginx 配置 https", True),
    # … a request followed closely by one.
    ("帮我配置 …", True),
    ("帮我配置代理", True),
    ("麻烦帮忙排查 …", True),
    ("麻烦帮忙排查一下", True),
    # … document nouns.
    ("操作手册", True),
    ("运维手册", True),
    ("配置指南", True),
    ("检查清单", True),
    ("操作流程", True),
    ("数据库的运维手册在哪里", True),
    # --- Chinese weak signals: a bare operational verb or 步骤 alone does not fire …
    ("安装", False),
    ("部署", False),
    ("配置", False),
    ("排查", False),
    ("步骤", False),
    # … and since they share one rule they do not add up.
    ("部署步骤", False),
    ("安装部署配置步骤", False),
    # An interrogative alone does not fire either.
    ("怎么样", False),
    ("这个怎么说", False),
    # Interrogative and verb separated by sentence punctuation are not "close".
    ("怎么了？部署", False),
    # --- Chinese negation: 不, 别, 勿, 未, 无需, 无须, anywhere.
    ("别帮我部署 …", False),
    ("别帮我部署生产环境", False),
    ("不同环境怎么部署", False),  # 不 inside 不同 still negates
    ("区别是什么，怎么部署", False),  # 别 inside 区别 still negates
    ("不要看操作手册", False),
    ("请勿按照运维手册", False),
    ("未提供检查清单", False),
    ("无需帮我配置", False),
    ("无须怎么配置", False),
    # Bare 没 is not a negator: 有没有 still fires when the rest qualifies.
    ("有没有 …", False),  # nothing else qualifies
    ("有没有人知道怎么配置代理", True),
    ("有没有部署的操作手册", True),
    ("有没有部署步骤", False),  # weak signal only — not because of 没
    ("没有人告诉我怎么部署", True),
    # --- Unrelated questions.
    ("Where was Einstein born?", False),
    ("What does Cognee do?", False),
    ("爱因斯坦出生在哪里", False),
    ("", False),
]


@pytest.mark.parametrize(("query", "fires"), CASES)
def test_gate(query: str, fires: bool) -> None:
    assert skill_gate_fires(query) is fires, (query, skill_gate_score(query), matched_rules(query))


def test_every_phrase_quoted_in_the_seed_is_covered() -> None:
    quoted = [
        "how do I",
        "steps to",
        "walk me through",
        "playbook",
        "runbook",
        "checklist",
        "workflow",
        "skill",
        "set up",
        "install",
        "configure",
        "deploy",
        "migrate",
        "troubleshoot",
        "怎么配置",
        "如何部署",
        "怎么排查这个报错",
        "帮我配置",
        "麻烦帮忙排查",
        "操作手册",
        "运维手册",
        "配置指南",
        "检查清单",
        "操作流程",
        "安装",
        "部署",
        "配置",
        "排查",
        "步骤",
        "部署步骤",
        "别帮我部署",
        "不同环境怎么部署",
        "有没有",
    ]
    queries = [q for q, _ in CASES]
    for phrase in quoted:
        assert any(phrase in q for q in queries), phrase


def test_weights_and_threshold() -> None:
    assert THRESHOLD == 1.0
    assert {rule.weight for rule in SKILL_RULES} == {0.5, 1.0}
    assert skill_gate_score("deploy") == 0.5
    assert skill_gate_score("部署步骤") == 0.5
    assert skill_gate_score("install and deploy and migrate") == 0.5  # one rule, counted once
    assert skill_gate_score("playbook playbook playbook") == 1.0
    assert skill_gate_score("how do I deploy") == 1.5
    assert skill_gate_score("Where was Einstein born?") == 0.0


def test_matched_rules_names_what_counted() -> None:
    assert matched_rules("how do I deploy") == ["en_how_do_i", "en_operational_verb"]
    assert matched_rules("怎么排查这个报错") == ["zh_interrogative_verb", "zh_bare_verb_or_steps"]
    assert matched_rules("别帮我部署") == []


@pytest.mark.parametrize("negator", ["not", "never", "别", "不"])
def test_negation_window_is_twenty_characters(negator: str) -> None:
    # The negator must lie wholly within the 20 characters before the match.
    inside = negator + " " * (NEGATION_WINDOW - len(negator)) + "playbook"
    outside = negator + " " * (NEGATION_WINDOW - len(negator) + 1) + "playbook"
    assert NEGATION_WINDOW == 20
    assert not skill_gate_fires(inside)
    assert skill_gate_fires(outside)


def test_negation_after_the_match_does_not_count() -> None:
    assert skill_gate_fires("playbook, not the wiki")
    assert skill_gate_fires("怎么部署，不要停机")


def test_one_unnegated_occurrence_is_enough() -> None:
    assert skill_gate_fires("not the old playbook — " + "x" * 30 + " the new playbook")


@pytest.mark.parametrize("query", [None, 42, b"how do I deploy", ["playbook"], object()])
def test_non_str_input_is_fail_safe(query: object) -> None:
    assert skill_gate_score(query) == 0.0
    assert skill_gate_fires(query) is False
    assert matched_rules(query) == []


def test_long_query_does_not_raise() -> None:
    assert skill_gate_fires("x " * 50_000 + "runbook")


# --- preconditions --------------------------------------------------------------------------------


def _run(
    *,
    enabled: bool = True,
    lanes: list[str] | None = None,
    dataset_count: int = 1,
    only_context: bool = False,
    query_type: SearchType | None = None,
) -> bool:
    return should_run_skill_gate(
        enabled=enabled,
        lanes=["graph"] if lanes is None else lanes,
        dataset_count=dataset_count,
        only_context=only_context,
        query_type=query_type,
    )


def test_runs_in_the_base_case() -> None:
    assert _run()
    assert _run(lanes=["session", "graph"])
    assert _run(query_type=SearchType.GRAPH_COMPLETION)
    assert _run(query_type=SearchType.CHUNKS)


@pytest.mark.parametrize(
    "overrides",
    [
        {"enabled": False},
        {"lanes": ["session"]},
        {"lanes": []},
        {"lanes": ["session", "trace", "session_context"]},
        {"dataset_count": 0},
        {"dataset_count": 2},
        {"only_context": True},
        {"query_type": SearchType.SKILLS},
        {"query_type": SearchType.AGENTIC_COMPLETION},
    ],
)
def test_skipped(overrides: dict[str, Any]) -> None:
    assert not _run(**overrides)
