"""``cognee.infrastructure.databases.relational.config``: ``get_relational_config``."""

from engramdb.compat.cognee.infrastructure.config_views import (
    RelationalConfig,
    get_relational_config,
)

__all__ = ["RelationalConfig", "get_relational_config"]
