"""A deterministic embedder for unit tests only.

It is not a language model: it hashes words (and their character trigrams) into signed buckets,
so texts that share words are closer than texts that do not, which is all retrieval tests need.
It has no network, no model file and no warm-up, and returns the same vector for the same text in
every process (blake2b, not Python's salted ``hash``). Never use it for real data.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from engramdb.errors import ConfigurationError
from engramdb.providers.embedding.base import Embedder
from engramdb.providers.embedding.onnx_local import validate_texts

__all__ = ["FakeEmbedder"]

_WORD = re.compile(r"\w+")
_TOKEN = re.compile(r"\w+|[^\w\s]")
#: Trigrams make "embedding"/"embeddings" similar; weighted below whole words so that shared
#: words dominate.
_TRIGRAM_WEIGHT = 0.35


class FakeEmbedder(Embedder):
    """Hashed bag-of-words vectors, L2-normalised. **For unit tests only.**

    Each lower-cased word adds +-1 to one of ``dimension`` buckets and each of its character
    trigrams adds +-0.35 to another (bucket and sign from blake2b). A text without any word gets a
    fixed unit vector, so every row has unit norm as the Embedder contract requires.
    """

    def __init__(self, dimension: int = 64) -> None:
        if dimension <= 0:
            raise ConfigurationError(f"FakeEmbedder dimension must be > 0, got {dimension}")
        self.dimension = dimension
        self.model_name = f"fake-hash-{dimension}"

    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        items = validate_texts(texts)
        out = np.zeros((len(items), self.dimension), dtype=np.float32)
        for row, text in enumerate(items):
            out[row] = self._vector(text)
        return out

    def count_tokens(self, text: str) -> int:
        """Words and punctuation marks, roughly what a WordPiece tokenizer would count."""
        return len(_TOKEN.findall(text))

    def _vector(self, text: str) -> npt.NDArray[np.float32]:
        vector = np.zeros(self.dimension, dtype=np.float64)
        for word in _WORD.findall(text.lower()):
            self._add(vector, "w:" + word, 1.0)
            padded = f"<{word}>"
            for i in range(len(padded) - 2):
                self._add(vector, "t:" + padded[i : i + 3], _TRIGRAM_WEIGHT)
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            vector[self._bucket("empty")[0]] = 1.0
            norm = 1.0
        return (vector / norm).astype(np.float32)

    def _add(self, vector: npt.NDArray[np.float64], feature: str, weight: float) -> None:
        index, sign = self._bucket(feature)
        vector[index] += sign * weight

    def _bucket(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return (value >> 1) % self.dimension, (1.0 if value & 1 else -1.0)
