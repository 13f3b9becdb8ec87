"""``cognee.modules.pipelines.tasks``."""
