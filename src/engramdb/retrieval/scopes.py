"""Recall scopes: which sources a recall reads, with the reference's expansion rules."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from engramdb.errors import EngramValidationError

__all__ = ["KNOWN_SCOPES", "ScopePlan", "expand_scope", "plan_scope"]

KNOWN_SCOPES = (
    "graph",
    "session",
    "trace",
    "session_context",
    "session_first",
    "all",
    "auto",
    "tools",
    "code",
)
_ALIASES = {"graph_context": "graph"}


@dataclass(frozen=True, slots=True)
class ScopePlan:
    """The lanes a recall runs, in order, and whether a session hit skips the graph lane."""

    lanes: list[str]
    #: True for "session_first", and for "auto" with a session_id but no datasets, dataset_ids
    #: or query_type: the graph lane runs only when the session lane found nothing.
    short_circuit: bool = False


def plan_scope(
    scope: str | Sequence[str] | None,
    *,
    session_id: str | None,
    explicit_type: bool,
    dataset_scoped: bool,
) -> ScopePlan:
    """:func:`expand_scope` plus the session short-circuit rule of the reference."""
    lanes = expand_scope(scope, session_id=session_id, explicit_type=explicit_type)
    names = [scope] if isinstance(scope, str) else list(scope or ["auto"])
    auto_fallthrough = (
        names == ["auto"] and session_id is not None and not explicit_type and not dataset_scoped
    )
    first = "session_first" in names or auto_fallthrough
    return ScopePlan(lanes=lanes, short_circuit=first and "session" in lanes and "graph" in lanes)


def expand_scope(
    scope: str | Sequence[str] | None, *, session_id: str | None, explicit_type: bool
) -> list[str]:
    """The ordered, de-duplicated lanes a recall runs.

    * None → "auto": graph alone without a session_id or when a query_type was pinned, else
      session then graph. "auto" never selects trace or session_context.
    * "session_first" → session, graph (then any other listed values).
    * "all" → graph, session, trace, session_context (never tools or code).
    * "graph_context" is a deprecated alias of "graph".
    * Any other unknown name raises EngramValidationError (a ValueError).
    """
    if scope is None:
        names: list[str] = ["auto"]
    elif isinstance(scope, str):
        names = [scope]
    elif isinstance(scope, Sequence) and all(isinstance(s, str) for s in scope):
        names = list(scope)
        if not names:
            raise EngramValidationError("scope must name at least one source, e.g. scope='graph'")
    else:
        raise EngramValidationError(f"scope must be a string or a list of strings, got {scope!r}")

    lanes: list[str] = []
    if "session_first" in names:
        lanes += ["session", "graph"]
    for raw in names:
        name = _ALIASES.get(raw, raw)
        if raw in _ALIASES:
            warnings.warn(
                f"scope {raw!r} is deprecated; use {name!r}", DeprecationWarning, stacklevel=3
            )
        if name not in KNOWN_SCOPES:
            raise EngramValidationError(
                f"unknown recall scope {raw!r}; valid scopes are: {', '.join(KNOWN_SCOPES)}"
            )
        if name == "session_first":
            continue
        if name == "auto":
            lanes += ["graph"] if session_id is None or explicit_type else ["session", "graph"]
        elif name == "all":
            lanes += ["graph", "session", "trace", "session_context"]
        else:
            lanes.append(name)
    return list(dict.fromkeys(lanes))
