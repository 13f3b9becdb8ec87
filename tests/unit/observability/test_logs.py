"""Structured JSON logs (issue 16, item 4: "structured JSON logs option"): with LOG_FORMAT=json
every line engramdb logs is one JSON object with timestamp, level, logger, message and the
contextual fields (verb, dataset_id, run_id) — in the library, the CLI and the server."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engramdb
from engramdb.observability import JsonFormatter, configure_logging, log_context
from engramdb.settings import Settings, config


@pytest.fixture
def json_lines(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Route the root logger through configure_logging(LOG_FORMAT=json) into a buffer."""
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    root = logging.getLogger()
    level = root.level
    configure_logging(Settings(log_format="json", log_level="INFO"))
    yield lambda: [json.loads(line) for line in buffer.getvalue().splitlines()]
    for handler in list(root.handlers):
        if handler.get_name() == "engramdb.observability.configure_logging":
            root.removeHandler(handler)
    root.setLevel(level)


async def test_log_lines_inside_a_verb_carry_verb_dataset_and_run(json_lines: Any) -> None:
    config.set("improve_stages_disabled", "triplet_enrichment")  # improve logs a warning
    already = len(json_lines())  # config.set's own check logged it once, outside any verb
    result = await engramdb.improve("notes")
    lines = [line for line in json_lines()[already:] if "triplet_enrichment" in line["message"]]
    assert lines, "improve logged nothing"
    for line in lines:
        assert set(line) >= {"timestamp", "level", "logger", "message", "verb"}
        assert line["level"] == "WARNING" and line["logger"] == "engramdb.settings"
        assert line["verb"] == "improve"
        assert line["timestamp"].endswith("+00:00")
    # The run's own warning is logged under its dataset and run.
    in_run = [line for line in lines if "run_id" in line]
    assert in_run and in_run[0]["dataset_id"] == str(result.dataset_id)


def test_the_formatter_takes_context_extra_and_exceptions() -> None:
    logger = logging.getLogger("engramdb.test.json")
    formatted: list[str] = []

    class Keep(logging.Handler):  # formats as it emits, in the caller's context, as any handler
        def emit(self, record: logging.LogRecord) -> None:
            formatted.append(self.format(record))

    handler = Keep()
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)
    try:
        with log_context(run_id="r-1", dataset_id="d-1"):
            try:
                raise ValueError("boom")
            except ValueError:
                logger.exception("failed %s", "here", extra={"verb": "forget"})
    finally:
        logger.removeHandler(handler)
    line = json.loads(formatted[0])
    assert line["message"] == "failed here"
    assert (line["run_id"], line["dataset_id"], line["verb"]) == ("r-1", "d-1", "forget")
    assert "ValueError: boom" in line["exception"]


def test_a_bad_log_format_names_the_choices() -> None:
    from engramdb.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match=r"LOG_FORMAT.*json"):
        config.set("log_format", "xml")
    config.set("log_format", " JSON ")
    assert config.settings.log_format == "json"


def test_the_cli_logs_json_lines(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENGRAMDB_", "LOG_"))}
    env.update(
        LOG_FORMAT="json",
        IMPROVE_STAGES_DISABLED="triplet_enrichment",
        EMBEDDING_PROVIDER="fake",
        EMBEDDING_DIMENSIONS="64",
        ENGRAMDB_DATA_DIR=str(tmp_path / "data"),
    )
    cli = Path(sys.executable).parent / "engramdb"
    done = subprocess.run(
        [str(cli), "improve", "notes", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]
    assert any(line["verb"] == "improve" and line["level"] == "WARNING" for line in lines)
    json.loads(done.stdout)  # the command's own output is untouched
