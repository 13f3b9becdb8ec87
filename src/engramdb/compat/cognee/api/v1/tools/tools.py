"""``cognee.api.v1.tools.tools``: the tool-connection and write-proposal functions (the names of
:mod:`engramdb.tools`, listed there once)."""

from engramdb.tools import *  # noqa: F403
from engramdb.tools import __all__ as __all__
