"""``cognee.memify_pipelines``: the session pipeline of cognee's memify, over improve()."""
