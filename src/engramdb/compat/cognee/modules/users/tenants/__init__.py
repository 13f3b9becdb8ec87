"""``cognee.modules.users.tenants`` over engramdb (:mod:`.methods`)."""
