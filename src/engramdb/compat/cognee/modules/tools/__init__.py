"""``cognee.modules.tools`` over engramdb (only :mod:`.resolve_skills`)."""
