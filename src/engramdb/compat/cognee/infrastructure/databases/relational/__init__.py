"""``cognee.infrastructure.databases.relational``: ``create_db_and_tables`` and
``get_relational_config``."""

from engramdb.compat.cognee.infrastructure.config_views import get_relational_config
from engramdb.compat.cognee.infrastructure.databases.relational.create_db_and_tables import (
    create_db_and_tables,
)

__all__ = ["create_db_and_tables", "get_relational_config"]
