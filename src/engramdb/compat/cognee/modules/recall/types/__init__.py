"""``cognee.modules.recall.types``: the classes of the entries ``recall()`` returns (see
:mod:`.RecallResponse`)."""
