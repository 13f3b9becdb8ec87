"""``cognee.exceptions``: cognee's exception classes as names for engramdb's own.

Each name IS an engramdb class (an alias, not a copy), so ``except cognee.exceptions.X`` catches
what engramdb raises for that kind of failure:

=========================  ==============================================================
cognee                     engramdb (:mod:`engramdb.errors`)
=========================  ==============================================================
CogneeApiError             EngramError (the root of every error engramdb raises)
CogneeValidationError      EngramValidationError (bad input; also a ValueError)
CogneeConfigurationError   ConfigurationError (a setting engramdb cannot use)
CogneeSystemError          StorageError (the store failed)
CogneeTransientError       ProviderError (an LLM or embedding provider failed; retry later)
=========================  ==============================================================

cognee's constructors also take ``name=`` / ``status_code=`` / ``log=``; engramdb's take the
message only (``CogneeConfigurationError("...")`` or ``message="..."``).
"""

from engramdb.errors import ConfigurationError as CogneeConfigurationError
from engramdb.errors import EngramError as CogneeApiError
from engramdb.errors import EngramValidationError as CogneeValidationError
from engramdb.errors import ProviderError as CogneeTransientError
from engramdb.errors import StorageError as CogneeSystemError

__all__ = [
    "CogneeApiError",
    "CogneeConfigurationError",
    "CogneeSystemError",
    "CogneeTransientError",
    "CogneeValidationError",
]
