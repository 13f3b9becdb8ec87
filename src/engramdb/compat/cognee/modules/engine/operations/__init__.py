"""``cognee.modules.engine.operations`` over engramdb (only :mod:`.setup`)."""
