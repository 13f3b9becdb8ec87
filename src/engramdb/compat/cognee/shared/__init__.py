"""``cognee.shared`` over engramdb (only :mod:`.logging_utils`)."""
