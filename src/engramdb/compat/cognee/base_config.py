"""``cognee.base_config``: ``get_base_config``, a read-only view of where engramdb keeps data."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from engramdb.compat.cognee.infrastructure.config_views import ViewFunction
from engramdb.settings import Settings

__all__ = ["BaseConfig", "get_base_config"]


class BaseConfig(BaseModel):
    """cognee's root directories: engramdb keeps everything under ENGRAMDB_DATA_DIR."""

    model_config = ConfigDict(frozen=True)

    data_root_directory: str
    system_root_directory: str
    personalization_enabled: bool
    personalization_influence: float
    preference_alpha: float
    preference_beta: float


def _base(settings: Settings) -> BaseConfig:
    root = str(settings.engramdb_data_dir)
    return BaseConfig(
        data_root_directory=root,
        system_root_directory=root,
        personalization_enabled=settings.personalization_enabled,
        personalization_influence=settings.personalization_influence,
        preference_alpha=settings.preference_alpha,
        preference_beta=settings.preference_beta,
    )


get_base_config = ViewFunction(_base, "get_base_config", "Where engramdb keeps its data.")
