"""The request model of every verb: the ONE place its options are declared.

The SDK function (``engramdb.recall``), the :class:`~engramdb.Engine` method, the REST body or
query, the MCP tool schema and the remote client's payload are all derived from these models
(see :mod:`engramdb.verbs`). Adding an option to a verb means adding a field here and using it
in the verb's handler.

Numbers and flags are strict (``"5"`` is not 5, ``"yes"`` is not True); checks that need the
settings (the query length limit) or the store (dataset names) stay in the handlers.
"""

from engramdb.models.requests.memory import (
    ForgetRequest,
    ImproveRequest,
    ListDatasetsRequest,
    ListImproveRunsRequest,
    RecallRequest,
    RememberInput,
    RememberRequest,
)

__all__ = [
    "ForgetRequest",
    "ImproveRequest",
    "ListDatasetsRequest",
    "ListImproveRunsRequest",
    "RecallRequest",
    "RememberInput",
    "RememberRequest",
]
