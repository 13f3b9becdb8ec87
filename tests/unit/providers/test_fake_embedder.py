"""FakeEmbedder: the deterministic stand-in the other unit tests embed with."""

from __future__ import annotations

import numpy as np
import pytest

from engramdb.errors import ConfigurationError, EngramValidationError
from engramdb.providers.embedding import Embedder, FakeEmbedder


async def test_shape_dtype_and_unit_norm() -> None:
    embedder = FakeEmbedder(dimension=32)
    vectors = await embedder.embed(["alpha beta", "gamma", "", "!!!"])
    assert isinstance(embedder, Embedder)
    assert vectors.shape == (4, 32)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


async def test_metadata() -> None:
    embedder = FakeEmbedder()
    assert embedder.dimension == 64
    assert embedder.model_name == "fake-hash-64"
    assert FakeEmbedder(dimension=384).model_name == "fake-hash-384"


async def test_empty_input() -> None:
    vectors = await FakeEmbedder(dimension=16).embed([])
    assert vectors.shape == (0, 16)
    assert vectors.dtype == np.float32


async def test_deterministic_across_instances_and_batches() -> None:
    texts = ["The cat sat on the mat.", "Graphs store relations.", "x"]
    first = await FakeEmbedder().embed(texts)
    second = await FakeEmbedder().embed(list(reversed(texts)))
    np.testing.assert_array_equal(first, second[::-1])
    alone = await FakeEmbedder().embed([texts[1]])
    np.testing.assert_array_equal(alone[0], first[1])


async def test_case_insensitive() -> None:
    vectors = await FakeEmbedder().embed(["Hello World", "hello world"])
    np.testing.assert_array_equal(vectors[0], vectors[1])


async def test_shared_words_are_closer_than_unrelated_text() -> None:
    embedder = FakeEmbedder(dimension=256)
    query, related, unrelated = await embedder.embed(
        [
            "postgres connection pool settings",
            "tuning the postgres connection pool",
            "bananas are rich in potassium",
        ]
    )
    assert float(query @ related) > float(query @ unrelated) + 0.3


async def test_same_in_a_fresh_process() -> None:
    """blake2b, not Python's salted hash(): vectors do not change between processes."""
    import subprocess
    import sys

    code = (
        "import asyncio, sys; from engramdb.providers.embedding.fake import FakeEmbedder; "
        "v = asyncio.run(FakeEmbedder(8).embed(['stable text'])); "
        "sys.stdout.write(','.join(repr(float(x)) for x in v[0]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    here = (await FakeEmbedder(8).embed(["stable text"]))[0]
    np.testing.assert_array_equal(np.array([float(x) for x in out.split(",")], np.float32), here)


def test_count_tokens_counts_words_and_punctuation() -> None:
    embedder = FakeEmbedder()
    assert embedder.count_tokens("") == 0
    assert embedder.count_tokens("hello world") == 2
    assert embedder.count_tokens("Hello, world!") == 4


async def test_rejects_bad_input() -> None:
    embedder = FakeEmbedder()
    with pytest.raises(EngramValidationError):
        await embedder.embed("a single string")
    with pytest.raises(EngramValidationError):
        await embedder.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError):
        FakeEmbedder(dimension=0)
