"""The Embedder contract."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder"]


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors.

    ``model_name`` and ``dimension`` are recorded on every dataset the embedder writes to, so a
    dataset is never searched with vectors of another model.
    """

    model_name: str
    dimension: int

    @abstractmethod
    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts``; returns an array of shape ``(len(texts), dimension)`` whose rows have
        unit L2 norm. An empty input returns shape ``(0, dimension)``. Provider failures raise
        EmbeddingProviderError."""

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """How many model tokens ``text`` takes (without special tokens). Used by chunkers to keep
        chunks within the model's window; must be cheap and must not load the model weights."""

    async def close(self) -> None:  # noqa: B027 - optional hook, default does nothing
        """Release resources (HTTP clients, sessions)."""
