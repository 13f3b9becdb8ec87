"""``cognee.api.v1.delete``: ``delete`` (deprecated in cognee 0.3.9: ``datasets.delete_data``)."""

from .delete import delete

__all__ = ["delete"]
