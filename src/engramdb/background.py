"""``engramdb.wait_for_background_tasks``: cognee's wait for fire-and-forget work."""

from __future__ import annotations

from engramdb.client import LocalClient
from engramdb.remote.switch import active_client

__all__ = ["wait_for_background_tasks"]


async def wait_for_background_tasks(timeout: float | None = None) -> bool:
    """Wait until the background runs started in this process have finished
    (``cognify(run_in_background=True)``, ``remember(run_in_background=True)``, the automatic
    improve after an ingestion). True when all finished, False when ``timeout`` seconds passed
    first; nothing is cancelled and failures are not raised here. In remote mode the runs are
    the server's: nothing runs here, True at once."""
    client = active_client()
    if not isinstance(client, LocalClient):
        return True
    return await client.engine.wait_for_background_tasks(timeout)
