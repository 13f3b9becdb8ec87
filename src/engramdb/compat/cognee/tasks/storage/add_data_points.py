"""``cognee.tasks.storage.add_data_points``."""

from engramdb.pipelines.storage import add_data_points

__all__ = ["add_data_points"]
