"""``Text``: a string that ``remember()`` stores as text, never reads as a path.

A bare ``str`` input that names an existing file or directory is loaded from disk, and one that
merely *looks* like a path (``./notes/``, ``~/a.md``, ``report.pdf``) but names nothing is refused,
so a typo never gets stored as a one-line memory. ``Text("./notes/")`` says "this is content":
it is a ``str`` (anything taking a ``str`` takes it) that the loader never checks against the disk.
"""

from __future__ import annotations

__all__ = ["Text"]


class Text(str):
    """Content for ``remember()`` that is stored as text even when it looks like a path."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Text({str.__repr__(self)})"
