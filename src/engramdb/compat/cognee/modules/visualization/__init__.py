"""``cognee.modules.visualization``."""
