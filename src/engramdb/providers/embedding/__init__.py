"""Embedding providers.

Importing this package is cheap: onnxruntime, tokenizers and httpx are imported only when a
provider first needs them. Use :func:`build_embedder` to get the configured one.
"""

from engramdb.providers.embedding.base import Embedder
from engramdb.providers.embedding.factory import build_embedder
from engramdb.providers.embedding.fake import FakeEmbedder
from engramdb.providers.embedding.onnx_local import OnnxEmbedder
from engramdb.providers.embedding.openai_compatible import OpenAICompatibleEmbedder

__all__ = [
    "Embedder",
    "FakeEmbedder",
    "OnnxEmbedder",
    "OpenAICompatibleEmbedder",
    "build_embedder",
]
