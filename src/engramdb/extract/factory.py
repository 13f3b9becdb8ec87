"""Building the offline (no-LLM) graph extractor from its configured name.

``"auto"`` is the heuristic extractor. Measured on the hand-labelled gold set's held-out split
(bench/extraction.py) the heuristic extractor matches or beats the spaCy one (entity F1
0.905 vs 0.869, relation pair F1 0.796 vs 0.796) at about twenty times the speed (400-670 vs
24-27 chunks/s of ~300 tokens on two cores) and with no install weight, where the ``[nlp]``
extra adds ~220 MB. "auto" therefore does not switch to spaCy when it happens to be
installed: results do not change with the environment; ask for "spacy" explicitly.
"""

from __future__ import annotations

from engramdb.errors import ConfigurationError
from engramdb.extract.offline import HeuristicExtractor
from engramdb.extract.spacy_extractor import (
    INSTALL_HINT,
    MODEL_PACKAGE,
    SpacyExtractor,
    spacy_available,
)
from engramdb.extract.types import Extractor

__all__ = ["OFFLINE_EXTRACTORS", "build_offline_extractor"]

#: Names accepted by :func:`build_offline_extractor`.
OFFLINE_EXTRACTORS = ("auto", "heuristic", "spacy")


def build_offline_extractor(name: str = "auto") -> Extractor:
    """The offline extractor called ``name``: "heuristic", "spacy" or "auto" (= heuristic).

    Raises :class:`ConfigurationError` for an unknown name, or for "spacy" when spaCy or its
    English model is not installed (the message says ``pip install 'engramdb[nlp]'``). The
    spaCy model itself is loaded lazily, on the first extraction.
    """
    choice = name.strip().lower() if isinstance(name, str) else ""
    if choice in ("auto", "heuristic"):
        return HeuristicExtractor()
    if choice == "spacy":
        # spacy_extractor imports spaCy only when its model is first loaded.
        if not spacy_available():
            raise ConfigurationError(
                "the 'spacy' offline extractor needs spaCy and its English model "
                f"({MODEL_PACKAGE}), which are not installed: {INSTALL_HINT} — or set the "
                "offline extractor to 'heuristic'"
            )
        return SpacyExtractor()
    raise ConfigurationError(
        f"unknown offline extractor {name!r}: choose one of {', '.join(OFFLINE_EXTRACTORS)}"
    )
