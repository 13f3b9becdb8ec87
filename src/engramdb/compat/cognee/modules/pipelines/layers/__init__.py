"""``cognee.modules.pipelines.layers`` over engramdb (only
:mod:`.resolve_authorized_user_datasets`)."""
