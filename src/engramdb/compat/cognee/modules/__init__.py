"""``cognee.modules`` over engramdb (:mod:`.search.types`, :mod:`.users`, :mod:`.data`, ...)."""
