"""``cognee.modules.recall`` over engramdb (only :mod:`.types`: recall's entry classes)."""
