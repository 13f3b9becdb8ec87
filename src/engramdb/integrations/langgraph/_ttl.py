"""Time-to-live of LangGraph store items: the config, and where each item's expiry is kept.

An item's document is written once per ``put`` (its text is embedded then), so its expiry is not
kept in the document's ``external_metadata``: a refresh on read would rewrite and re-embed it.
Each namespace's dataset keeps instead ONE small JSON record, ``{key: [ttl_minutes,
expires_at]}`` for its items that have a TTL, in the dataset's key/value state
(``set_improve_state`` under :data:`STATE_KEY`; deleted with the dataset, carried by archive
export/import). Reading a namespace's expiries is one row; a refresh rewrites that row and
nothing else. Items absent from the record never expire.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from langgraph.store.base import SearchItem, SearchOp, TTLConfig

from engramdb.errors import EngramValidationError

__all__ = ["STATE_KEY", "Expiries", "ReadBatch", "check_ttl", "check_ttl_config", "utcnow"]

#: The dataset state key that holds a namespace's expiries.
STATE_KEY = "langgraph_store.ttl"
_CONFIG_KEYS = frozenset(TTLConfig.__annotations__)


def check_ttl(ttl: float | None, what: str = "ttl") -> float | None:
    """``ttl`` (minutes) if it is None or a positive finite number; else a clear error."""
    if ttl is None:
        return None
    if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not math.isfinite(ttl):
        raise EngramValidationError(f"{what} must be a number of minutes or None, got {ttl!r}")
    if ttl <= 0:
        raise EngramValidationError(
            f"{what} must be a positive number of minutes (e.g. 0.5 or 60), got {ttl!r}; pass "
            "None for an item that never expires, or delete() it"
        )
    return float(ttl)


def check_ttl_config(config: TTLConfig | None) -> TTLConfig | None:
    """The constructor's ``ttl_config``, checked (unknown keys and bad minutes refused)."""
    if config is None:
        return None
    unknown = sorted(set(config) - _CONFIG_KEYS)
    if unknown:
        raise EngramValidationError(
            f"ttl_config: unknown key(s) {', '.join(map(repr, unknown))}; use "
            f"{', '.join(sorted(_CONFIG_KEYS))}"
        )
    check_ttl(config.get("default_ttl"), "ttl_config['default_ttl']")
    check_ttl(config.get("sweep_interval_minutes"), "ttl_config['sweep_interval_minutes']")
    return config


class Expiries:
    """One namespace's ``{key: (ttl_minutes, expires_at)}``, as read from its state record."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, tuple[float, datetime]] | None = None) -> None:
        self._items: dict[str, tuple[float, datetime]] = dict(items or {})

    @classmethod
    def from_json(cls, text: str | None) -> Expiries:
        if not text:
            return cls()
        raw: dict[str, Any] = json.loads(text)
        return cls({k: (float(v[0]), datetime.fromisoformat(v[1])) for k, v in raw.items()})

    def to_json(self) -> str:
        return json.dumps(
            {k: [ttl, at.isoformat()] for k, (ttl, at) in sorted(self._items.items())},
            separators=(",", ":"),
        )

    def __bool__(self) -> bool:
        return bool(self._items)

    def expired(self, key: str, now: datetime) -> bool:
        """Whether item ``key`` has expired at ``now`` (an item without TTL never does)."""
        held = self._items.get(key)
        return held is not None and held[1] <= now

    def expired_keys(self, now: datetime) -> list[str]:
        return sorted(k for k, (_, at) in self._items.items() if at <= now)

    def set(self, key: str, ttl: float | None, now: datetime) -> bool:
        """Give ``key`` a TTL from ``now`` (None: no expiry); whether the record changed."""
        if ttl is None:
            return self._items.pop(key, None) is not None
        self._items[key] = (ttl, now + timedelta(minutes=ttl))
        return True

    def refresh(self, key: str, now: datetime) -> bool:
        """Extend a live item's expiry to ``now`` + its TTL; whether the record changed."""
        held = self._items.get(key)
        if held is None or held[1] <= now:
            return False
        self._items[key] = (held[0], now + timedelta(minutes=held[0]))
        return True


class ReadBatch:
    """What the read ops of one batch share: their clock, the namespaces' expiries they read,
    and the items they returned with ``refresh_ttl`` (refreshed after the reads)."""

    __slots__ = ("_expiries", "_load", "now", "refresh")

    def __init__(self, now: datetime, load: Callable[[UUID], Awaitable[Expiries]]) -> None:
        self.now = now
        self._load = load
        self._expiries: dict[UUID, Expiries] = {}
        self.refresh: dict[tuple[str, ...], set[str]] = {}

    async def expiries(self, dataset_id: UUID) -> Expiries:
        """A namespace's expiries (read once per batch)."""
        if dataset_id not in self._expiries:
            self._expiries[dataset_id] = await self._load(dataset_id)
        return self._expiries[dataset_id]

    def returned(self, op: SearchOp, items: list[SearchItem]) -> list[SearchItem]:
        if op.refresh_ttl:
            for item in items:
                self.refresh.setdefault(tuple(item.namespace), set()).add(item.key)
        return items


def utcnow() -> datetime:
    return datetime.now(UTC)
