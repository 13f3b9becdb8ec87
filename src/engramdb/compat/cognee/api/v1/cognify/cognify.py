"""``cognee.api.v1.cognify.cognify``: ``cognify`` and ``get_default_tasks``."""

from __future__ import annotations

from typing import Any

from engramdb.facade import cognify
from engramdb.models.records import User
from engramdb.pipelines.run_info import PipelineContext
from engramdb.pipelines.task import Task

__all__ = ["cognify", "get_default_tasks"]


async def get_default_tasks(
    user: User | None = None,
    graph_model: Any = None,
    chunker: Any = None,
    chunk_size: int | None = None,
    config: Any = None,
    custom_prompt: str | None = None,
    chunks_per_batch: int | None = None,
    **kwargs: Any,
) -> list[Task]:
    """cognify as a task list for ``run_custom_pipeline``: ONE task that runs engramdb's
    ``cognify()`` (chunking, extraction, embedding and writing, one transaction per document)
    on the pipeline's dataset, with these options. cognee's own steps (classify, chunk,
    extract, summarize, store) are not separate tasks on engramdb."""
    options = {
        "graph_model": graph_model,
        "chunker": chunker,
        "chunk_size": chunk_size,
        "config": config,
        "custom_prompt": custom_prompt,
        **kwargs,
    }
    return [Task(_cognify_pipeline_dataset, needs_llm=True, **options)]


async def _cognify_pipeline_dataset(
    data: Any, ctx: PipelineContext | None = None, **options: Any
) -> Any:
    """Build what was added to the pipeline's dataset and not built yet (nothing, when an
    earlier item of the same run built it)."""
    dataset = getattr(ctx, "dataset", None) if ctx is not None else None
    ident = getattr(dataset, "id", None)
    user = getattr(ctx, "user", None) if ctx is not None else None
    given = {k: v for k, v in options.items() if v is not None}
    return await cognify([ident] if ident is not None else None, user=user, **given)
