"""``cognee.api.v1`` over engramdb: the verbs' modules."""
