"""Log formatting: the plain text lines, or one JSON object per line (``LOG_FORMAT=json``).

A JSON line has ``timestamp`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, the
contextual fields that are set (``verb``, ``dataset_id``, ``run_id``, ``stage``; see
:mod:`engramdb.observability.context`), the same fields when passed through ``extra=``, and
``exception`` with the traceback when there is one.

engramdb never configures logging on import. The ``engramdb`` command and ``engramdb serve``
call :func:`configure_logging` when ``LOG_FORMAT=json``; an application calls it itself (or
puts :class:`JsonFormatter` on its own handler); cognee's ``setup_logging()`` follows
``LOG_FORMAT`` too.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from engramdb.observability.context import FIELDS, current_fields

if TYPE_CHECKING:
    from engramdb.settings import Settings

__all__ = ["TEXT_FORMAT", "JsonFormatter", "configure_logging", "formatter_for"]

#: The plain text line.
TEXT_FORMAT = "%(asctime)s [%(levelname)-8s] %(name)s: %(message)s"
#: Marks the handler configure_logging() installed, so a second call replaces it.
_HANDLER_NAME = "engramdb.observability.configure_logging"


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module docstring for its keys)."""

    def format(self, record: logging.LogRecord) -> str:
        document: dict[str, object] = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        document.update(current_fields())
        for name in FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                document[name] = str(value)
        if record.exc_info:
            document["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            document["exception"] = record.exc_text
        return json.dumps(document, ensure_ascii=False, default=str)


def formatter_for(settings: Settings) -> logging.Formatter:
    """The formatter ``LOG_FORMAT`` asks for."""
    if settings.log_format == "json":
        return JsonFormatter()
    return logging.Formatter(TEXT_FORMAT)


def configure_logging(settings: Settings | None = None, *, name: str = _HANDLER_NAME) -> None:
    """Log to stderr through the root logger at ``LOG_LEVEL`` in the ``LOG_FORMAT`` format
    (``settings`` default: :data:`engramdb.config`'s). Calling it again replaces the handler a
    previous call with the same ``name`` installed."""
    if settings is None:
        from engramdb.settings import config

        settings = config.settings
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() == name:
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(name)
    handler.setFormatter(formatter_for(settings))
    root.addHandler(handler)
    root.setLevel(settings.log_level)
