"""``cognee.api.v1.cognify``: ``cognify``."""

# from the sub-module, so that importing it later keeps ``cognify`` the function
from engramdb.compat.cognee.api.v1.cognify.cognify import cognify

__all__ = ["cognify"]
