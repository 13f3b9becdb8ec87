"""``cognee.modules`` over engramdb (only :mod:`.search.types`)."""
