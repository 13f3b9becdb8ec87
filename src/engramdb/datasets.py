"""``engramdb.datasets``: cognee's ``datasets`` namespace, for programs written against it::

    for dataset in await engramdb.datasets.list_datasets():
        items = await engramdb.datasets.list_data(dataset.id)
    await engramdb.datasets.delete_data(dataset_id=dataset.id, data_id=items[0].id)
    statuses = await engramdb.datasets.get_status([dataset.id])

``list_data`` answers :class:`~engramdb.models.datasets.Data` items (cognee's ``Data``
attributes), ``get_status`` cognee's :class:`PipelineRunStatus` values by dataset id.
"""

from __future__ import annotations

import os

from engramdb.facade import list_datasets, verb_functions
from engramdb.models.datasets import Data, PipelineRunStatus

__all__ = [
    "Data",
    "PipelineRunStatus",
    "delete_all",
    "delete_data",
    "discover_datasets",
    "empty_dataset",
    "get_progress",
    "get_status",
    "has_data",
    "list_data",
    "list_datasets",
]

_verbs = verb_functions("engramdb.datasets")
list_data = _verbs["list_data"]
has_data = _verbs["has_data"]
get_status = _verbs["get_status"]
get_progress = _verbs["get_progress"]
empty_dataset = _verbs["empty_dataset"]
delete_data = _verbs["delete_data"]
delete_all = _verbs["delete_all"]


def discover_datasets(directory_path: str) -> list[str | None]:
    """The dataset names a directory tree stands for, as cognee names them: each folder that
    holds files is a dataset named by its path below ``directory_path``, parts joined with
    ``.`` (``"docs.2024"``); files directly in ``directory_path`` belong to ``None``."""
    return list(_discover(os.fspath(directory_path), None))


def _discover(root: str, parent: str | None) -> dict[str | None, list[str]]:
    found: dict[str | None, list[str]] = {}
    for entry in sorted(os.listdir(root)):
        path = os.path.join(root, entry)
        if os.path.isdir(path):
            found.update(_discover(path, entry if parent is None else f"{parent}.{entry}"))
        else:
            found.setdefault(parent, []).append(path)
    return found
