"""``cognee.shared.logging_utils`` over the standard library's logging.

``setup_logging()`` is the only function here that configures handlers, and only when the
program calls it (cognee calls it on import; engramdb never configures logging by itself).
"""

from __future__ import annotations

import logging
import sys

__all__ = ["CRITICAL", "DEBUG", "ERROR", "INFO", "WARNING", "get_logger", "setup_logging"]

DEBUG = logging.DEBUG
INFO = logging.INFO
WARNING = logging.WARNING
ERROR = logging.ERROR
CRITICAL = logging.CRITICAL

#: Marks the handler setup_logging() installed, so a second call replaces it instead of adding
#: another (the handler object is the state; nothing is kept in this module).
_HANDLER_NAME = "engramdb.compat.cognee.setup_logging"


def get_logger(name: str | None = None, level: int | None = None) -> logging.Logger:
    """The standard logger ``name`` (this module's name when None), at ``level`` if given."""
    logger = logging.getLogger(name if name else __name__)
    if level is not None:
        logger.setLevel(level)
    return logger


def setup_logging(log_level: int | None = None, name: str | None = None) -> logging.Logger:
    """Log to stderr at ``log_level`` (default: the ``LOG_LEVEL`` environment variable, else
    INFO) through the root logger, as cognee's does, in the ``LOG_FORMAT`` format (text or JSON
    lines); returns the logger ``name``. Calling it again replaces the handler it installed."""
    level = log_level if log_level is not None else _level_from_env()
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() == _HANDLER_NAME:
            root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(_formatter())
    root.addHandler(handler)
    root.setLevel(level)
    return get_logger(name)


def _formatter() -> logging.Formatter:
    """The line format ``LOG_FORMAT`` asks for (JSON lines or the text format)."""
    from engramdb.observability.logs import formatter_for
    from engramdb.settings import config

    return formatter_for(config.settings)


def _level_from_env() -> int:
    from engramdb.settings import config

    level: int = logging.getLevelNamesMapping()[config.settings.log_level]
    return level
