"""``cognee.infrastructure.databases.relational.config``: ``get_relational_config`` and
``get_migration_config``."""

from engramdb.compat.cognee.infrastructure.config_views import (
    MigrationConfig,
    RelationalConfig,
    get_migration_config,
    get_relational_config,
)

__all__ = ["MigrationConfig", "RelationalConfig", "get_migration_config", "get_relational_config"]
