"""Graph visualisation: the knowledge graph as one self-contained, offline HTML page.

:func:`render_graph_html` turns nodes and edges into the page; the verb that reads the store and
writes the file is :func:`engramdb.api.visualize.visualize_graph`.
"""

from __future__ import annotations

from engramdb.viz.html import render_graph_html

__all__ = ["render_graph_html"]
