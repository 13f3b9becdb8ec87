"""``cognee.modules.users.roles`` over engramdb (:mod:`.methods`)."""
