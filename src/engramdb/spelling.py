"""Names an error message mentions (a verb to run, an option to pass), kept as data.

The SDK, the REST server and the CLI share every error the library raises, but each calls a
verb and passes an option its own way: ``remember()`` and ``only_context=True`` in Python,
``engramdb remember`` and ``--only-context`` on the command line. An error that tells its reader
what to do therefore holds a *template* (``"Run {0} first"``) and the :class:`Term` s to put in
it; ``str(error)`` spells them for Python (the SDK's message, unchanged), and
:meth:`engramdb.errors.EngramError.render` spells them for any other surface with a function
``Term -> str`` that surface provides (the CLI's is :func:`engramdb.cli.messages.spell`). One
message per error, one speller per surface.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Term", "option", "verb"]


@dataclass(frozen=True)
class Term:
    """A verb (``verb="remember"``) or a verb's option with a value (``option="only_context",
    value=True``) that a message names; ``python`` overrides the derived Python spelling."""

    verb: str | None = None
    option: str | None = None
    value: Any = None
    python_text: str | None = None

    @property
    def python(self) -> str:
        """The spelling an SDK user types: ``remember()``, ``only_context=True``."""
        if self.python_text is not None:
            return self.python_text
        if self.option is not None:
            return f"{self.option}={self.value!r}"
        return f"{self.verb}()"

    def to_json(self) -> dict[str, Any]:
        """The term as it travels in a problem document (JSON values only)."""
        return {k: v for k, v in vars(self).items() if v is not None}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Term:
        return cls(**{k: raw.get(k) for k in ("verb", "option", "value", "python_text")})


def verb(name: str) -> Term:
    """The verb ``name`` (run it)."""
    return Term(verb=name)


def option(name: str, value: Any = True, *, python: str | None = None) -> Term:
    """The option ``name`` of the verb at hand, passed with ``value``."""
    return Term(option=name, value=value, python_text=python)
