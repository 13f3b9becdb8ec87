"""The base of every verb's request model (see :mod:`engramdb.verbs.spec`)."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.fields import FieldInfo

__all__ = ["LOCAL", "VerbRequest", "marked"]

#: ``json_schema_extra`` marker of an option that cannot cross HTTP (a Python object such as a
#: class or a user record): it is left out of the REST body and MCP schema, and the remote client
#: refuses a non-default value with a message saying so (unless the verb encodes it, e.g.
#: ``response_model`` travels as ``response_schema``).
LOCAL: dict[str, Any] = {"engramdb_local": True}


class VerbRequest(BaseModel):
    """Base of every verb's request model: unknown options are refused, values are checked, and
    a request is immutable once built."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, frozen=True)

    #: Options that may also be passed by position, in order (the rest are keyword-only).
    positional: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def local_fields(cls) -> frozenset[str]:
        """The options that cannot cross HTTP."""
        return frozenset(name for name, info in cls.model_fields.items() if _is_local(info))

    def wire_payload(self) -> dict[str, Any]:
        """The JSON body of this request for the REST route (local-only options left out)."""
        return self.model_dump(mode="json", exclude=set(self.local_fields()))

    def non_default_local(self) -> list[str]:
        """Local-only options set to something other than their default."""
        fields = type(self).model_fields
        return [
            name
            for name in sorted(self.local_fields())
            if getattr(self, name) != fields[name].get_default(call_default_factory=True)
        ]

    def deprecated_used(self) -> list[str]:
        """The deprecated options this request sets (None and an empty list count as unset)."""
        return [
            name
            for name, info in type(self).model_fields.items()
            if marked(info, "engramdb_deprecated") and getattr(self, name) not in (None, [], ())
        ]

    def deprecation_warning(self, verb: str) -> str | None:
        """The FutureWarning a call with this request raises, or None. By default a deprecated
        option is ignored; a verb that still honours one says so in its own override."""
        used = self.deprecated_used()
        if not used:
            return None
        one = len(used) == 1
        return (
            f"{', '.join(used)} {'is' if one else 'are'} deprecated and ignored by engramdb's "
            f"{verb}(); {'it' if one else 'they'} will be removed"
        )


def _is_local(info: FieldInfo) -> bool:
    return marked(info, "engramdb_local")


def marked(info: FieldInfo, key: str) -> bool:
    extra = info.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get(key))
