"""``cognee`` over engramdb: the top level of a cognee program's ``import cognee``.

Every public name of :mod:`engramdb` is here (``remember``, ``recall``, ``improve``, ``forget``,
``session``, ``config``, ``SearchType``, the errors...), with cognee's classic verbs ``add``,
``cognify``, ``search`` and ``prune``. Sub-modules mirror some of cognee's module paths
(``cognee.shared.logging_utils``, ``cognee.modules.search.types``, ``cognee.api.v1.search``...).

Importing this package configures nothing (cognee sets up logging on import; engramdb leaves
that to the program's own ``setup_logging()`` call). ``engramdb run-cognee script.py`` runs a
cognee program with ``import cognee`` resolved here, see :mod:`engramdb.compat.cognee.runner`.
"""

import importlib as _importlib
import typing as _typing

import engramdb as _engramdb

__all__ = sorted({*_engramdb.__all__, "add", "cognify", "prune", "search"})


def __getattr__(name: str) -> _typing.Any:
    if name in __all__:
        value = getattr(_engramdb, name)
        globals()[name] = value
        return value
    try:  # a sub-module of ours that was not imported yet (cognee.shared, cognee.modules...)
        return _importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module 'cognee' (engramdb) has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return list(__all__)
