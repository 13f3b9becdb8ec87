"""``cognee.modules.retrieval.code_retriever``: the errors of ``SearchType.CODE``.

The retriever itself is engramdb's (:mod:`engramdb.code`); programs import these names to catch
a bad ``code_query`` (``CodeSearchValidationError``) or a seed the code graph cannot resolve
(``CodeSeedNotFoundError``, a subclass of it, as in the reference).
"""

from engramdb.errors import CodeSeedNotFoundError
from engramdb.errors import InvalidCodeQueryError as CodeSearchValidationError

__all__ = ["CodeSearchValidationError", "CodeSeedNotFoundError"]
