"""``cognee.modules.users`` over engramdb (only :mod:`.methods`)."""
