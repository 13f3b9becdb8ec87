"""``cognee.infrastructure.databases.relational``: ``create_db_and_tables``,
``get_relational_config``, and the database ``migrate_relational_database`` reads
(``get_migration_config``, ``get_migration_relational_engine``)."""

from engramdb.compat.cognee.infrastructure.config_views import (
    get_migration_config,
    get_relational_config,
)
from engramdb.compat.cognee.infrastructure.databases.relational.create_db_and_tables import (
    create_db_and_tables,
)
from engramdb.compat.cognee.infrastructure.databases.relational.get_migration_relational_engine import (  # noqa: E501
    get_migration_relational_engine,
)

__all__ = [
    "create_db_and_tables",
    "get_migration_config",
    "get_migration_relational_engine",
    "get_relational_config",
]
