"""``cognee.modules.pipelines.models.PipelineRunInfo``."""

from engramdb.compat.cognee.modules.pipelines.models import *  # noqa: F403
from engramdb.compat.cognee.modules.pipelines.models import __all__ as __all__
