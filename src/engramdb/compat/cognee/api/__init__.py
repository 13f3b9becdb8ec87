"""``cognee.api`` over engramdb."""
