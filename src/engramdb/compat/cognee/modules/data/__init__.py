"""``cognee.modules.data`` over engramdb (only :mod:`.methods`)."""
