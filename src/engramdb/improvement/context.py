"""What every improve stage receives, and what a stage hands back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engramdb.models.records import Dataset, User
from engramdb.models.sessions import QARecord

if TYPE_CHECKING:
    from engramdb.engine import Engine
    from engramdb.improvement.custom import CustomTasks
    from engramdb.settings import Settings
    from engramdb.storage.base import Store

__all__ = ["ImproveContext", "ImproveOptions", "StageOutcome", "consumer_name", "for_dataset"]


@dataclass(frozen=True, slots=True)
class ImproveOptions:
    """The per-call choices of improve(); None means "follow the setting"."""

    session_ids: tuple[str, ...] = ()
    feedback_alpha: float | None = None
    build_global_context_index: bool | None = None
    build_truth_subspace: bool = False
    review_conflicts: bool | None = None
    #: Run only these stages (the reference's memify pipelines each run one); None runs all.
    only_stages: frozenset[str] | None = None
    #: The deprecated extraction/enrichment tasks: run as the extra ``custom_tasks`` stage.
    custom: CustomTasks | None = None
    #: The automatic improve after remember() (the conflict review debounces it, see
    #: :mod:`.conflicts`).
    automatic: bool = False


@dataclass(slots=True)
class ImproveContext:
    engine: Engine
    user: User
    dataset: Dataset
    options: ImproveOptions
    #: The raw return of the ``custom_tasks`` stage's first pass (ImproveResult.memify_run).
    memify_run: dict[Any, Any] | None = None

    @property
    def store(self) -> Store:
        return self.engine.store

    @property
    def settings(self) -> Settings:
        return self.engine.settings

    @property
    def session_ids(self) -> tuple[str, ...]:
        return self.options.session_ids


@dataclass(frozen=True, slots=True)
class StageOutcome:
    """A stage's verdict: ``completed``, ``already_completed`` (with a reason) or ``errored``
    (partly done; ``reason`` holds the error), plus counts."""

    status: str = "completed"
    reason: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


def consumer_name(stage: str, dataset: Dataset) -> str:
    """The session-mark consumer of a stage for one dataset: a session may feed several
    datasets, and each dataset spends an entry once."""
    return f"{stage}:{dataset.id}"


def for_dataset(entries: list[QARecord], dataset: Dataset) -> list[QARecord]:
    """The Q&A entries a dataset's improve bridges: those answered from it, and those tied to no
    dataset (an application's own ``session.add_qa`` turns), in the order given."""
    return [qa for qa in entries if not qa.dataset_ids or dataset.id in qa.dataset_ids]
