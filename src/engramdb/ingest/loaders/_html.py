"""Visible text of an HTML page, using only the standard library's ``html.parser``.

Why not a full HTML library: ingestion only needs what a reader sees, in reading order, with
the block structure kept as line breaks so the chunker can cut at paragraph boundaries.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["html_to_text"]

#: Elements whose content is never shown to a reader.
_HIDDEN = frozenset({"script", "style", "head", "title", "template", "noscript"})
#: Elements that start a new paragraph (a blank line in the output).
_PARAGRAPH = frozenset(
    {
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table", "blockquote",
        "pre", "section", "article", "header", "footer", "nav", "aside", "main", "figure",
        "form", "fieldset", "address", "details", "hr",
    }
)  # fmt: skip
#: Elements that start a new line.
_LINE = frozenset(
    {"br", "div", "li", "dt", "dd", "tr", "caption", "figcaption", "summary", "option", "legend"}
)
_CELLS = frozenset({"td", "th"})
#: HTML collapses only ASCII whitespace; a non-breaking space stays.
_SPACE_RUN = re.compile(r"[ \t\n\r\f]+")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


class _VisibleText(HTMLParser):
    """Collects visible text; block elements become pending line breaks."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)  # entities arrive already unescaped
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self._hidden = 0
        self._pre = 0
        self._in_title = False
        self._pending_break = 0  # 0: none, 1: newline, 2: blank line
        self._cells_in_row = 0

    # -- structure ---------------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self._hidden = 0  # a <head> nobody closed ends where the body starts
        if tag == "title":
            self._in_title = True
        if tag in _HIDDEN:
            self._hidden += 1
            return
        if tag == "pre":
            self._pre += 1
        if tag == "tr":
            self._cells_in_row = 0
        if tag in _CELLS:
            if self._cells_in_row:
                self._emit(" | ", raw=True)
            self._cells_in_row += 1
        self._block(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
            return
        if tag == "pre":
            self._pre = max(0, self._pre - 1)
        self._block(tag)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        if self._hidden:
            return
        self._emit(data, raw=bool(self._pre))

    # -- output ------------------------------------------------------------------------------
    def _block(self, tag: str) -> None:
        if tag in _PARAGRAPH:
            self._pending_break = 2
        elif tag in _LINE:
            self._pending_break = max(self._pending_break, 1)

    def _emit(self, data: str, *, raw: bool) -> None:
        if not raw:
            data = _SPACE_RUN.sub(" ", data)
            at_line_start = self._pending_break > 0 or not self.parts
            if at_line_start or self.parts[-1].endswith((" ", "\n")):
                data = data.lstrip(" ")
            if not data:
                return
        if self._pending_break and self.parts:
            self.parts[-1] = self.parts[-1].rstrip(" ")
            self.parts.append("\n" * self._pending_break)
        self._pending_break = 0
        self.parts.append(data)


def html_to_text(markup: str) -> tuple[str, str | None]:
    """Return ``(visible_text, title)`` of an HTML document.

    Scripts, styles, templates and the ``<head>`` are dropped; paragraphs, headings, lists and
    tables become blank-line separated blocks, ``<br>``/``<li>``/``<tr>`` new lines, table
    cells are joined with `` | ``. Whitespace is collapsed as a browser would, except inside
    ``<pre>``. Entities are unescaped.
    """
    parser = _VisibleText()
    parser.feed(markup)
    parser.close()
    text = _TRAILING_SPACE.sub("\n", "".join(parser.parts)).strip()
    title = _SPACE_RUN.sub(" ", "".join(parser.title_parts)).strip() or None
    return text, title
