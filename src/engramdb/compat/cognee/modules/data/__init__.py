"""``cognee.modules.data``."""
