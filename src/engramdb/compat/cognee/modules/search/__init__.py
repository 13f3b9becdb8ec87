"""``cognee.modules.search`` over engramdb (only :mod:`.types`)."""
