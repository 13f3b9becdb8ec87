"""``cognee.api.v1.tools``: registered SQL connections and write proposals of recall's
``tools`` scope (``cognee.tools`` is the same module, ``engramdb.tools``)."""

from engramdb.compat.cognee.api.v1.tools import tools
from engramdb.compat.cognee.api.v1.tools.tools import *  # noqa: F403
from engramdb.tools import __all__ as _names

__all__ = [*_names, "tools"]
