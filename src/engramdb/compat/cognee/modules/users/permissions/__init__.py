"""``cognee.modules.users.permissions`` over engramdb: ``PERMISSION_TYPES`` and :mod:`.methods`."""

from engramdb.models.access import PERMISSIONS

__all__ = ["PERMISSION_TYPES"]

#: The permissions a dataset grant can carry (engramdb's, which are cognee's).
PERMISSION_TYPES: list[str] = list(PERMISSIONS)
