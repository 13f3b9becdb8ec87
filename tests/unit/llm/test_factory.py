"""build_llm: settings to LLM (or None), and the import cost of the LLM package."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from engramdb.errors import ConfigurationError
from engramdb.providers.llm import OpenAICompatibleLLM, build_llm
from engramdb.settings import Settings


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_no_key_and_no_endpoint_means_no_llm() -> None:
    assert build_llm(settings()) is None


def test_api_key_alone_uses_openai() -> None:
    llm = build_llm(
        settings(
            llm_api_key="sk-x",
            llm_model="gpt-4o-mini",
            llm_timeout=12,
            llm_max_retries=5,
            llm_max_concurrency=7,
        )
    )
    assert isinstance(llm, OpenAICompatibleLLM)
    assert llm.model == "gpt-4o-mini"
    assert llm.base_url == "https://api.openai.com/v1"
    assert (llm._timeout, llm._max_retries, llm._max_concurrency) == (12, 5, 7)


def test_endpoint_alone_needs_no_key() -> None:
    llm = build_llm(settings(llm_endpoint="http://localhost:11434/v1/", llm_model="llama3.2"))
    assert isinstance(llm, OpenAICompatibleLLM)
    assert llm.base_url == "http://localhost:11434/v1"
    assert llm._api_key == ""


def test_local_provider_defaults_its_endpoint() -> None:
    llm = build_llm(settings(llm_provider="Ollama", llm_api_key="unused"))
    assert isinstance(llm, OpenAICompatibleLLM)
    assert llm.base_url == "http://localhost:11434/v1"


def test_cache_is_passed_through() -> None:
    class Cache:
        async def get(self, key: str) -> str | None:
            return None

        async def put(self, key: str, value: str, *, data_id: object = None) -> None:
            return None

    cache = Cache()
    llm = build_llm(settings(llm_api_key="sk-x"), cache=cache)
    assert isinstance(llm, OpenAICompatibleLLM)
    assert llm._cache is cache


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"llm_provider": "bard", "llm_api_key": "k"}, "unknown LLM_PROVIDER"),
        ({"llm_provider": "custom", "llm_api_key": "k"}, "needs LLM_ENDPOINT"),
        ({"llm_provider": "anthropic", "llm_api_key": "k"}, "needs LLM_ENDPOINT"),
        ({"llm_endpoint": "localhost:11434"}, "http:// or https://"),
        ({"llm_api_key": "k", "llm_model": "  "}, "LLM_MODEL"),
    ],
)
def test_nonsense_is_a_configuration_error(values: dict[str, Any], fragment: str) -> None:
    with pytest.raises(ConfigurationError, match=fragment):
        build_llm(settings(**values))


def test_importing_and_building_does_not_import_openai() -> None:
    code = (
        "import engramdb, engramdb.providers.llm, engramdb.extract.llm, sys, json; "
        "from engramdb.providers.llm import OpenAICompatibleLLM, build_llm; "
        "from engramdb.settings import Settings; "
        "build_llm(Settings(_env_file=None, llm_endpoint='http://127.0.0.1:9/v1')); "
        "print(json.dumps({m: m in sys.modules for m in ('openai', 'httpx', 'httpx2')}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded == {"openai": False, "httpx": False, "httpx2": False}
