"""The skill gate: does a query read like a request for a procedure? (recall.md, "Skill gate")

A fixed set of weighted regexes — no LLM call, no I/O. Each rule contributes its weight at
most once (however often it matches) when it has at least one match that is not negated; the
gate fires when the summed score reaches :data:`THRESHOLD`.

Tiers (weights):

* **Procedure phrasings, 1.0 — fire alone.** English (word-bounded, case-insensitive):
  "how do/can/should/would I/we …", "steps to/for …", "step by step", "walk me/us through",
  "playbook", "runbook", "checklist", "workflow", "skill(s)". Chinese (boundary-free): an
  interrogative followed closely by an operational verb (怎么配置, 如何部署, 怎么排查这个报错);
  a request followed closely by one (帮我配置, 麻烦帮忙排查); document nouns (操作手册, 运维手册,
  配置指南, 检查清单, 操作流程, …).
* **Weak signals, 0.5 — never fire alone.** English operational verbs (set up, install,
  configure, deploy, migrate, troubleshoot, and similar) share ONE rule; "how to" is a second
  weak English rule, so "how to deploy" fires but "how to" or "deploy" alone does not. Chinese
  bare operational verbs (安装, 部署, 配置, 排查, …) and 步骤 share ONE rule, so they never add
  up among themselves: 部署步骤 alone scores 0.5 and does not fire.

Negation: a match is ignored when a negation word lies within the 20 characters immediately
before it (the whole negator inside ``text[start - 20:start]``). English negators are
word-bounded: not, n't, no, never, without, lack (and cannot, lacks, lacking). Chinese
negators 不, 别, 勿, 未, 无需, 无须 match anywhere, including inside unrelated words such as
不同 or 区别 — so 不同环境怎么部署 does not fire. Bare 没 is deliberately not a negator:
有没有 ("is there …") must not suppress an otherwise qualifying question.

Fail-safe: scoring never raises; a non-str query scores 0.0 and does not fire.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from engramdb.models.search_type import SearchType

__all__ = [
    "NEGATION_WINDOW",
    "SKILL_RULES",
    "STRONG_WEIGHT",
    "THRESHOLD",
    "WEAK_WEIGHT",
    "SkillRule",
    "matched_rules",
    "should_run_skill_gate",
    "skill_gate_fires",
    "skill_gate_score",
]

THRESHOLD = 1.0
"""The gate fires when the summed weight of matched, non-negated rules reaches this."""

STRONG_WEIGHT = 1.0
"""Weight of a procedure phrasing: enough to fire on its own."""

WEAK_WEIGHT = 0.5
"""Weight of a weak signal: fires only together with another rule of at least this weight."""

NEGATION_WINDOW = 20
"""How many characters before a match are searched for a negation word."""


@dataclass(frozen=True, slots=True)
class SkillRule:
    """One weighted gate rule."""

    name: str
    pattern: re.Pattern[str]
    weight: float


def _en(pattern: str) -> re.Pattern[str]:
    """An English rule: word-bounded on both ends, case-insensitive."""
    return re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)


# Chinese: an operational verb, and the gap allowed between an interrogative / request and it
# ("closely": at most 8 characters, never across sentence punctuation).
_ZH_VERB = (
    "安装|部署|配置|设置|排查|搭建|迁移|升级|调试|修复|回滚|卸载|重装|重启|初始化|上线|"
    "备份|恢复|扩容|缩容"
)
_ZH_GAP = r"[^，。！？；：、,.!?;:\n]{0,8}?"
_ZH_INTERROGATIVE = "怎么|怎样|如何|咋"
_ZH_REQUEST = "帮我|帮忙|帮帮我|请帮|麻烦|教我|教教我|指导我"
_ZH_DOC_NOUN = (
    "操作手册|运维手册|配置指南|检查清单|操作流程|操作指南|安装指南|部署指南|部署手册|"
    "排查手册|故障手册|应急预案|工作流"
)
_EN_OPERATIONAL_VERB = (
    r"set[\s\-]?up|setting\s+up|sets\s+up"
    r"|(?:un|re)?install(?:s|ed|ing|ation|ations)?"
    r"|(?:re)?configur(?:e|es|ed|ing|ation|ations)"
    r"|(?:re)?deploy(?:s|ed|ing|ment|ments)?"
    r"|migrat(?:e|es|ed|ing|ion|ions)"
    r"|troubleshoot(?:s|ed|ing)?"
    r"|upgrad(?:e|es|ed|ing)"
    r"|provision(?:s|ed|ing)?"
    r"|roll(?:s|ed|ing)?[\s\-]?back"
    r"|debug(?:s|ged|ging)?"
    r"|bootstrap(?:s|ped|ping)?"
    r"|initiali[sz](?:e|es|ed|ing|ation)"
    r"|restor(?:e|es|ed|ing)"
    r"|back[\s\-]?up"
)

SKILL_RULES: tuple[SkillRule, ...] = (
    # English procedure phrasings — each fires alone.
    SkillRule("en_how_do_i", _en(r"how\s+(?:do|can|could|should|would)\s+(?:i|we)"), 1.0),
    SkillRule("en_steps_to", _en(r"steps\s+(?:to|for)"), 1.0),
    SkillRule("en_step_by_step", _en(r"step[\s\-]+by[\s\-]+step"), 1.0),
    SkillRule("en_walk_me_through", _en(r"walk\s+(?:me|us)\s+through"), 1.0),
    SkillRule("en_playbook", _en(r"playbooks?"), 1.0),
    SkillRule("en_runbook", _en(r"run[\s\-]?books?"), 1.0),
    SkillRule("en_checklist", _en(r"check[\s\-]?lists?"), 1.0),
    SkillRule("en_workflow", _en(r"work[\s\-]?flows?"), 1.0),
    SkillRule("en_skill", _en(r"skills?"), 1.0),
    # English weak signals — each too weak alone, two different ones reach the threshold.
    SkillRule("en_how_to", _en(r"how\s+to"), 0.5),
    SkillRule("en_operational_verb", _en(_EN_OPERATIONAL_VERB), 0.5),
    # Chinese, boundary-free.
    SkillRule(
        "zh_interrogative_verb", re.compile(f"(?:{_ZH_INTERROGATIVE}){_ZH_GAP}(?:{_ZH_VERB})"), 1.0
    ),
    SkillRule("zh_request_verb", re.compile(f"(?:{_ZH_REQUEST}){_ZH_GAP}(?:{_ZH_VERB})"), 1.0),
    SkillRule("zh_document_noun", re.compile(f"(?:{_ZH_DOC_NOUN})"), 1.0),
    SkillRule("zh_bare_verb_or_steps", re.compile(f"(?:{_ZH_VERB}|步骤)"), 0.5),
)
"""The gate's rules. Weights are STRONG_WEIGHT (1.0) or WEAK_WEIGHT (0.5)."""

_NEGATION_RE = re.compile(
    r"\b(?:not|no|never|without|lack(?:s|ing)?|cannot)\b"  # English, word-bounded
    r"|n['’]t\b"  # don't, can't, isn’t
    r"|不|别|勿|未|无需|无须",  # Chinese, anywhere (deliberately not 没)
    re.IGNORECASE,
)


def _negated(text: str, start: int) -> bool:
    """True iff a negator lies wholly within ``text[start - NEGATION_WINDOW:start]``.

    Searching the full string from the window start (rather than a slice) keeps word
    boundaries honest: the "not" inside "cannot" is not a word on its own.
    """
    lo = max(0, start - NEGATION_WINDOW)
    for neg in _NEGATION_RE.finditer(text, lo):
        if neg.start() >= start:
            return False
        if neg.end() <= start:
            return True
    return False


def _rule_counts(rule: SkillRule, text: str) -> bool:
    return any(not _negated(text, m.start()) for m in rule.pattern.finditer(text))


def matched_rules(query: object) -> list[str]:
    """Names of the rules that count for ``query`` (matched at least once, un-negated).

    Invariant: a non-str query yields an empty list; never raises.
    """
    if not isinstance(query, str):
        return []
    return [rule.name for rule in SKILL_RULES if _rule_counts(rule, query)]


def skill_gate_score(query: object) -> float:
    """Sum of the weights of the rules that count for ``query``.

    Invariants: each rule contributes at most once; 0.0 for a non-str or empty query; never
    raises; the result is a multiple of 0.5 (so the threshold comparison is exact).
    """
    if not isinstance(query, str):
        return 0.0
    return sum((rule.weight for rule in SKILL_RULES if _rule_counts(rule, query)), 0.0)


def skill_gate_fires(query: object) -> bool:
    """True iff ``skill_gate_score(query) >= THRESHOLD``. Never raises; False for non-str."""
    return skill_gate_score(query) >= THRESHOLD


_REDUNDANT_TYPES = frozenset({SearchType.SKILLS, SearchType.AGENTIC_COMPLETION})


def should_run_skill_gate(
    *,
    enabled: bool,
    lanes: Collection[str],
    dataset_count: int,
    only_context: bool,
    query_type: SearchType | None,
) -> bool:
    """Whether recall evaluates the skill gate at all (independently of the query text).

    True only when all hold: the gate is enabled (``SKILL_GATE_ENABLED``), ``"graph"`` is
    among the resolved lanes, exactly one dataset is targeted (skills are per dataset),
    ``only_context`` is False, and ``query_type`` is not SKILLS or AGENTIC_COMPLETION (which
    would make the lookup redundant). Otherwise the gate is skipped silently.
    """
    return (
        enabled
        and "graph" in lanes
        and dataset_count == 1
        and not only_context
        and query_type not in _REDUNDANT_TYPES
    )
