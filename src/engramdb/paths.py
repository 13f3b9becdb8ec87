"""User-given path strings, read the same way everywhere."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_path"]


def user_path(text: str | os.PathLike[str]) -> Path:
    """``text`` as a path with a leading ``~`` or ``~user`` expanded.

    A ``~name`` naming no user on this machine stays as written (``os.path.expanduser``'s rule),
    so it reads as a path that does not exist instead of failing as pathlib's ``expanduser``
    does with RuntimeError.
    """
    return Path(os.path.expanduser(os.fspath(text)))
