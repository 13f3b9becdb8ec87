"""``cognee.modules.memify`` over engramdb (only :mod:`.skill_improvement`)."""
