"""Refuse, by name, the options of cognee's verbs that engramdb does not honour."""

from __future__ import annotations

from engramdb.errors import FeatureNotAvailableError
from engramdb.models.requests.classic import UNSUPPORTED
from engramdb.models.verb_request import VerbRequest

__all__ = ["refuse_unsupported"]


def refuse_unsupported(verb: str, request: VerbRequest) -> None:
    """FeatureNotAvailableError for the first option of ``request`` set to a value engramdb
    cannot honour; the message names the supported alternative."""
    for option, (accepted, instead) in UNSUPPORTED[verb].items():
        value = getattr(request, option)
        if value is not accepted and value != accepted:
            raise FeatureNotAvailableError(
                f"{verb}({option}={_shown(value)}) is not available on engramdb; {instead} "
                "(see docs/migrating-from-cognee.md)"
            )


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
