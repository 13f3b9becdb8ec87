"""``cognee.modules.chunking``."""
