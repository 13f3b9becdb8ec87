"""Run an unmodified cognee program on engramdb: ``engramdb run-cognee script.py [args...]``.

For the running process only, :func:`run_cognee_script` installs an import hook that resolves
``cognee`` and every ``cognee.<path>`` to ``engramdb.compat.cognee[.<path>]``, then runs the
script as ``__main__``. ``import engramdb`` never installs it, so a real cognee installed beside
engramdb keeps working in every other process. A cognee module path engramdb does not mirror
fails to import with a ModuleNotFoundError that says so.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import runpy
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["CogneeAliasFinder", "run_cognee_script"]

_ALIAS = "cognee"
_TARGET = "engramdb.compat.cognee"


class CogneeAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``cognee[.x]`` as the module ``engramdb.compat.cognee[.x]`` (the same object, so
    ``cognee.add is engramdb.add``)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != _ALIAS and not fullname.startswith(_ALIAS + "."):
            return None
        real = _TARGET + fullname[len(_ALIAS) :]
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"engramdb does not provide cognee's module {fullname!r} yet (the cognee "
                "compatibility layer mirrors the paths listed in docs/migrating-from-cognee.md)",
                name=fullname,
            )
        return importlib.machinery.ModuleSpec(
            fullname, self, is_package=found.submodule_search_locations is not None
        )

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        real = importlib.import_module(_TARGET + spec.name[len(_ALIAS) :])
        spec.loader_state = real.__spec__
        return real

    def exec_module(self, module: ModuleType) -> None:
        # The import system stamped the alias's spec on the real module: give it back its own.
        alias = module.__spec__
        if alias is not None and alias.loader_state is not None:
            module.__spec__ = alias.loader_state
            _keep_package_names(alias.name)


class _PackageKeepingNames(ModuleType):
    """A package whose names bound to a submodule's object (``llm.LLMGateway`` the class of
    ``llm/LLMGateway.py``, as cognee lays them out) survive that submodule's first import under
    its ``cognee.`` alias: the import system then sets the package attribute to the submodule,
    which a direct import never does once the package has run."""

    def __setattr__(self, name: str, value: object) -> None:
        current = self.__dict__.get(name)
        if (
            isinstance(value, ModuleType)
            and current is not None
            and not isinstance(current, ModuleType)
            and value.__name__ == f"{self.__name__}.{name}"
        ):
            return
        super().__setattr__(name, value)


def _keep_package_names(alias_name: str) -> None:
    parent_name, _, child = alias_name.rpartition(".")
    parent = sys.modules.get(parent_name) if parent_name else None
    if parent is None or type(parent) is not ModuleType:
        return
    if not isinstance(parent.__dict__.get(child, parent), ModuleType):
        parent.__class__ = _PackageKeepingNames


def run_cognee_script(script: str | Path, args: Sequence[str] = ()) -> None:
    """Run ``script`` as ``__main__`` with ``sys.argv = [script, *args]`` and cognee's imports
    resolved to engramdb (this process only). SystemExit from the script propagates."""
    path = Path(script)
    if not path.is_file():
        raise FileNotFoundError(f"no such cognee program: {path}")
    sys.argv = [str(path), *args]
    sys.path.insert(0, str(path.resolve().parent))
    sys.meta_path.insert(0, CogneeAliasFinder())
    asyncio.run = _closing_run(asyncio.run)
    runpy.run_path(str(path), run_name="__main__")


def _closing_run(run: Callable[..., Any]) -> Callable[..., Any]:
    """``asyncio.run`` that closes engramdb's default engine when the program's main coroutine
    ends, before the loop cancels what is left: cognee programs never close their memory, and a
    PostgreSQL pool cancelled mid-connect at loop teardown would retry its connection for up to
    a minute. The next ``asyncio.run`` of the program opens a new engine."""

    def closing(main: Any, **kwargs: Any) -> Any:
        from engramdb.engine import close_default_engine

        async def main_then_close() -> Any:
            try:
                return await main
            finally:
                await close_default_engine()

        return run(main_then_close(), **kwargs)

    return closing
