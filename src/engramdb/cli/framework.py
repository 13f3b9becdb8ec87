"""The CLI's typer classes: every group and command of ``engramdb`` is built from these.

Typer's help shows a type tag next to each option (``<str>``, ``<path>``); for an on/off flag
that tag is ``<bool>``, which reads as if the flag took a value. :class:`CliTyper` builds every
command (and group) with a class whose parameters show no tag for flags, so the fix holds for
every command, present and future, in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup
from typer.models import CommandFunctionType

__all__ = ["CliTyper", "running_command"]

#: The command being run (its parameters spell options in messages, see cli.messages).
_RUNNING: ContextVar[Any] = ContextVar("engramdb_cli_command", default=None)


def running_command() -> Any:
    """The command whose callback is running (None outside one)."""
    return _RUNNING.get()


def _untag_flags(params: list[Any]) -> list[Any]:
    for param in params:
        if getattr(param, "is_flag", False) and getattr(param, "metavar", "") is None:
            param.metavar = ""  # typer shows the metavar instead of the type tag
    return params


class _Command(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return _untag_flags(super().get_params(ctx))

    def invoke(self, ctx: Any) -> Any:
        token = _RUNNING.set(self)
        try:
            return super().invoke(ctx)
        finally:
            _RUNNING.reset(token)


class _Group(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return _untag_flags(super().get_params(ctx))


class CliTyper(typer.Typer):
    """A :class:`typer.Typer` whose group and commands show flags without a type tag."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", _Group)
        super().__init__(**kwargs)

    def command(
        self, name: str | None = None, **kwargs: Any
    ) -> Callable[[CommandFunctionType], CommandFunctionType]:
        kwargs.setdefault("cls", _Command)
        return super().command(name, **kwargs)
