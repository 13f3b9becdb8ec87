"""How the CLI tells its user what went wrong: library errors spelled in command-line terms.

Errors are shared by the SDK, the REST server and the CLI; those that name a verb to run or an
option to pass carry them as :class:`engramdb.spelling.Term` s. :func:`spell` writes a term the
way a shell user types it (``'engramdb remember'``, ``--only-context``, ``--type CHUNKS``),
reading the option's flag off the command being run so it cannot drift from the CLI.
"""

from __future__ import annotations

from typing import NoReturn

import typer

from engramdb.cli.framework import running_command
from engramdb.errors import EngramError
from engramdb.spelling import Term

__all__ = ["fail", "render_error", "spell"]

#: Verbs whose command has another name than the verb (the rest: the verb with dashes).
_COMMAND_FOR_VERB = {"list_datasets": "datasets", "list_sessions": "session list"}


def spell(term: Term) -> str:
    """``term`` as typed on the command line."""
    if term.option is None:
        name = str(term.verb)
        return f"'engramdb {_COMMAND_FOR_VERB.get(name, name.replace('_', '-'))}'"
    flag = f"--{term.option.replace('_', '-')}"
    is_flag = isinstance(term.value, bool)
    command = running_command()
    for param in getattr(command, "params", None) or ():
        if param.name == term.option and param.param_type_name == "option":
            flag = max(param.opts, key=len)
            is_flag = bool(param.is_flag)
    return flag if is_flag else f"{flag} {term.value}"


def render_error(exc: EngramError) -> str:
    """The error's message with its terms in CLI spelling."""
    return exc.render(spell)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` in red on stderr and exit with ``code``."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code=code)
