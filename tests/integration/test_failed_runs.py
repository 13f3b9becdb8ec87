"""A pipeline that fails mid-way: the run is recorded errored (scrubbed), whole documents only,
and the next remember completes the rest."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

import engramdb
from engramdb.engine import Engine, get_engine, set_engine
from engramdb.models.records import RunStatus
from engramdb.providers.embedding.fake import FakeEmbedder
from engramdb.settings import config


class FlakyEmbedder(FakeEmbedder):
    """The real fake embedder, failing from the first call that asks for a text containing
    ``fail_from`` on, like a provider outage (however the pipeline batches its calls)."""

    def __init__(self, fail_from: str) -> None:
        super().__init__(dimension=64)
        self.failing = False
        self.fail_from = fail_from

    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.failing = self.failing or any(self.fail_from in t for t in texts)
        if self.failing:
            raise engramdb.EmbeddingProviderError(
                "upstream refused: api_key=sk-live-0123456789abcdef for alice@example.com"
            )
        return await super().embed(texts)


def _docs(n: int) -> list[str]:
    # Each document is large enough (300 chunks) to fill one embedding window on its own.
    return [
        "\n\n".join(
            f"Document {i} paragraph {p} talks about topic {i * 1000 + p}." for p in range(300)
        )
        for i in range(n)
    ]


async def test_failed_run_is_recorded_and_resumable() -> None:
    config.set("chunk_max_tokens", 16)  # one paragraph per chunk
    set_engine(Engine(config.settings, embedder=FlakyEmbedder(fail_from="Document 2 ")))
    with pytest.raises(engramdb.EmbeddingProviderError):
        await engramdb.remember(_docs(4), dataset_name="flaky")

    store = get_engine().store
    owner = await store.get_or_create_default_user()
    dataset = await store.find_dataset(owner.id, "flaky")
    assert dataset is not None
    runs = await store.list_runs([dataset.id])
    assert runs[0].status is RunStatus.ERRORED
    assert runs[0].error_class == "EmbeddingProviderError"
    assert runs[0].error_message is not None
    assert "sk-live-0123456789abcdef" not in runs[0].error_message
    assert "alice@example.com" not in runs[0].error_message
    written = await store.list_data(dataset.id)
    assert len(written) == 2  # the two windows embedded before the outage, each whole
    assert (await store.check_integrity()).ok

    set_engine(Engine(config.settings, embedder=FakeEmbedder(dimension=64)))
    result = await engramdb.remember(_docs(4), dataset_name="flaky")
    assert result.counts["documents"] == 2 and result.counts["skipped"] == 2
    assert len(await get_engine().store.list_data(dataset.id)) == 4
