"""``cognee.modules.engine`` over engramdb (only :mod:`.operations.setup`)."""
