"""``cognee.tasks``: the storage tasks (``cognee.tasks.storage``)."""
