"""Settings: the reference's variables and defaults, config.set validation."""

from __future__ import annotations

import pytest

import engramdb
from engramdb.settings import IMPROVE_STAGES, Settings, config, disabled_stages


def test_reference_defaults() -> None:
    s = Settings()
    assert s.recall_warmup_shortcircuit is True and s.recall_warmup_threshold == 1
    assert s.skill_gate_enabled is True
    assert s.personalization_enabled is False and s.personalization_influence == 0.3
    assert s.preference_alpha == 0.3 and s.preference_beta == 0.02
    assert s.improve_feedback_alpha == 0.1 and s.improve_review_conflicts is True
    assert s.improve_global_context_index is True
    assert s.improve_effective_date_key == "effective_date"
    assert (s.improve_debounce_entries, s.improve_debounce_seconds) == (1, 0)
    assert s.improve_auto_enabled is True and s.edge_evidence_enabled is True


def test_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_WARMUP_SHORTCIRCUIT", "false")
    monkeypatch.setenv("PERSONALIZATION_INFLUENCE", "0.1")
    s = Settings()
    assert s.recall_warmup_shortcircuit is False and s.personalization_influence == 0.1


def test_config_set_validates_and_applies() -> None:
    engramdb.config.set("recall_warmup_shortcircuit", False)
    assert config.settings.recall_warmup_shortcircuit is False
    with pytest.raises(engramdb.ConfigurationError, match="PREFERENCE_ALPHA"):
        engramdb.config.set("preference_alpha", 5)
    with pytest.raises(engramdb.ConfigurationError, match="unknown setting"):
        engramdb.config.set("no_such_thing", 1)
    assert config.settings.preference_alpha == 0.3  # a refused value changes nothing


def test_unknown_disabled_stage_lists_valid_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IMPROVE_STAGES_DISABLED", "distill_sessions,bogus")
    config.reset()
    settings = config.settings  # loading does not fail: improve's first read does (improve.md)
    with pytest.raises(engramdb.ConfigurationError) as info:
        disabled_stages(settings.improve_stages_disabled)
    for stage in IMPROVE_STAGES:
        if stage != "persist_session_qa":
            assert stage in str(info.value)
    with pytest.raises(engramdb.ConfigurationError):
        engramdb.config.set("improve_stages_disabled", "persist_session_qa")


def test_storage_url_defaults_to_the_data_dir(tmp_path: object) -> None:
    engramdb.config.set("engramdb_data_dir", "/tmp/x-engram")
    assert config.settings.storage_url == "sqlite:////tmp/x-engram/engramdb.sqlite3"


def test_llm_configured_by_key_or_endpoint() -> None:
    assert not config.settings.llm_configured
    engramdb.config.set("llm_endpoint", "http://127.0.0.1:9/v1")
    assert config.settings.llm_configured
