"""Render graph nodes and edges as ONE self-contained, offline HTML page.

The page must open from a file on a machine without network (an artifact attached to a CI run, a
file mailed to a colleague), so everything is inlined: the stylesheet and the WebGL
renderer under ``assets/`` (``graph-renderer.js``: sigma.js + graphology, built from
``ui/src/graph`` by ``scripts/build-ui.sh``, the same renderer the web UI's graph explorer uses)
and the graph itself as a JSON data block. No CDN, no fonts, no external URL; a
Content-Security-Policy forbids the page from loading anything (the layout worker is a ``blob:``
the page makes itself).

Stored text is hostile by default (it is whatever was ingested): it goes into the page only as
JSON whose ``<``, ``>`` and ``&`` are written as ``\\u`` escapes, so no stored text can close the
data block, open a comment or start markup; the renderer then shows it with ``textContent`` and
canvas text only.
"""

from __future__ import annotations

import html
import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any
from uuid import UUID

from engramdb.models.records import Edge, Node, NodeType
from engramdb.viz.select import human_labels

__all__ = [
    "EMPTY_MESSAGE",
    "TEXT_PREVIEW_CHARS",
    "TYPE_COLORS",
    "color_for_type",
    "graph_payload",
    "render_graph_html",
    "render_payload_html",
]

#: Colours of the built-in node types (colour-blind-friendly Tableau 10 hues).
TYPE_COLORS: dict[str, str] = {
    NodeType.DOCUMENT.value: "#4e79a7",
    NodeType.CHUNK.value: "#f28e2b",
    NodeType.SUMMARY.value: "#59a14f",
    NodeType.ENTITY.value: "#e15759",
    NodeType.ENTITY_TYPE.value: "#b07aa1",
}

#: Colours for node types added later; a type keeps its colour across pages (stable hash).
_EXTRA_COLORS = ("#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac", "#2f4b7c", "#a05195")

#: Legend order: the pipeline's own types first, in the order they are derived.
_TYPE_ORDER = [t.value for t in NodeType]

#: Node text kept in the page per node. The tooltip shows less; the cap keeps a graph of
#: thousands of long chunks from producing a page of hundreds of megabytes.
TEXT_PREVIEW_CHARS = 2000

#: What the page says when there is nothing to draw.
EMPTY_MESSAGE = "The memory is empty: there is nothing to draw yet."

_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; worker-src blob:; base-uri 'none'; form-action 'none'"
)


def color_for_type(type_name: str) -> str:
    """The colour of a node type: fixed for built-in types, a stable pick for any other."""
    known = TYPE_COLORS.get(type_name)
    if known is not None:
        return known
    # A small deterministic hash (not hash(), which is salted per process).
    h = 0
    for ch in type_name:
        h = (h * 31 + ord(ch)) & 0xFFFFFFFF
    return _EXTRA_COLORS[h % len(_EXTRA_COLORS)]


@cache
def _asset(name: str) -> str:
    """An asset file's text, read from the installed package (works from a wheel or a zip)."""
    text = resources.files("engramdb.viz").joinpath("assets", name).read_text(encoding="utf-8")
    # An inlined asset must not end its own element early, nor contain the sequences that
    # switch the HTML parser's script states.
    forbidden = ("</script", "<script", "<!--") if name.endswith(".js") else ("</style",)
    for bad in forbidden:
        if bad in text.lower():
            raise RuntimeError(f"viz asset {name} contains {bad!r} and cannot be inlined")
    return text


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: JSON.parse rejects NaN/Infinity, and stored properties may
    hold anything a loader put there, so every non-JSON value becomes a string."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    return str(value)


def _type_sort_key(type_name: str) -> tuple[int, str]:
    try:
        return (_TYPE_ORDER.index(type_name), type_name)
    except ValueError:
        return (len(_TYPE_ORDER), type_name)


def graph_payload(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    *,
    title: str,
    dataset_names: Mapping[UUID, str],
) -> dict[str, Any]:
    """The data block the page embeds: every stored field of every node and edge.

    Nodes are sorted by id so the (seeded) layout is the same whatever order the store returned
    them in. Edges whose ends are not both among ``nodes`` are left out and counted in
    ``dropped_edges`` (a bounded drawing cuts some).
    """
    ordered = sorted(nodes, key=lambda n: str(n.id))
    present = {n.id for n in ordered}
    labels = human_labels(ordered)

    def dataset(dataset_id: UUID) -> str:
        return dataset_names.get(dataset_id, str(dataset_id))

    node_rows = [
        {
            "id": str(n.id),
            "type": n.type,
            "name": n.name,
            "label": labels[n.id],
            "dataset": dataset(n.dataset_id),
            "dataset_id": str(n.dataset_id),
            "importance_weight": _jsonable(n.importance_weight),
            "feedback_weight": _jsonable(n.feedback_weight),
            "data_ids": [str(d) for d in n.data_ids],
            "text": n.text[:TEXT_PREVIEW_CHARS],
            "text_chars": len(n.text),
            "properties": _jsonable(n.properties),
        }
        for n in ordered
    ]
    kept = [e for e in edges if e.source_id in present and e.target_id in present]
    edge_rows = [
        {
            "id": str(e.id),
            "source": str(e.source_id),
            "target": str(e.target_id),
            "relation": e.relation,
            "dataset": dataset(e.dataset_id),
            "dataset_id": str(e.dataset_id),
            "importance_weight": _jsonable(e.importance_weight),
            "feedback_weight": _jsonable(e.feedback_weight),
            "data_ids": [str(d) for d in e.data_ids],
            "properties": _jsonable(e.properties),
        }
        for e in kept
    ]
    counts = Counter(n.type for n in ordered)
    types = [
        {"name": t, "color": color_for_type(t), "count": counts[t]}
        for t in sorted(counts, key=_type_sort_key)
    ]
    return {
        "title": title,
        "nodes": node_rows,
        "edges": edge_rows,
        "types": types,
        "dropped_edges": len(edges) - len(kept),
    }


def _json_for_script(data: Any) -> str:
    """JSON that is inert inside a ``<script>`` element: no ``<``, ``>`` or ``&`` characters
    (so no ``</script>``, ``<!--`` or ``]]>``) and no raw U+2028/U+2029."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _legend(types: Sequence[Mapping[str, Any]]) -> str:
    items = []
    for t in types:
        name = html.escape(str(t["name"]), quote=True)
        color = html.escape(str(t["color"]), quote=True)
        items.append(
            f'<li data-type="{name}"><button type="button" aria-pressed="true" '
            f'title="Show or hide {name} nodes">'
            f'<span class="swatch" style="background:{color}"></span>'
            f'<span class="type-name">{name}</span>'
            f'<span class="count">{int(t["count"])}</span></button></li>'
        )
    return "\n".join(items)


def render_graph_html(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    *,
    title: str,
    dataset_names: dict[UUID, str],
    notice: str | None = None,
) -> str:
    """One self-contained HTML page drawing ``nodes`` and ``edges``.

    ``dataset_names`` names the datasets in tooltips (unknown ids are shown as ids). ``notice``
    is shown under the title, e.g. to say the drawing was truncated. With no nodes the page says
    the memory is empty.
    """
    payload = graph_payload(nodes, edges, title=title, dataset_names=dataset_names)
    return render_payload_html(payload, notice=notice)


def render_payload_html(payload: Mapping[str, Any], *, notice: str | None = None) -> str:
    """The page of a :func:`graph_payload` (as ``GET /api/v1/graph/view`` also returns it)."""
    title = str(payload["title"])
    notices = [notice] if notice else []
    dropped = int(payload["dropped_edges"])
    if dropped:
        notices.append(
            f"{dropped} edge{'s' if dropped != 1 else ''} whose ends are not both drawn "
            f"{'were' if dropped != 1 else 'was'} left out."
        )
    node_count = len(payload["nodes"])
    edge_count = len(payload["edges"])
    names = sorted({str(row["dataset"]) for row in payload["nodes"]})
    meta = f"{node_count} node{'s' if node_count != 1 else ''} · {edge_count} edge" + (
        "s" if edge_count != 1 else ""
    )
    if names:
        meta += " · dataset" + ("s" if len(names) != 1 else "") + ": " + ", ".join(names)
    notice_html = "".join(f'<p class="notice">{html.escape(text)}</p>' for text in notices)
    empty_html = (
        ""
        if node_count
        else (
            f'<div id="engram-empty" role="status"><strong>{html.escape(EMPTY_MESSAGE)}</strong>'
            "Remember some data first, then draw the graph again.</div>"
        )
    )
    legend_items = _legend(payload["types"])
    legend_body = (
        f"<ul>\n{legend_items}\n</ul>" if legend_items else '<p class="hint">No nodes.</p>'
    )
    safe_title = html.escape(title)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="generator" content="engramdb">
<title>{safe_title}</title>
<style>
{_asset("graph-renderer.css")}
</style>
</head>
<body>
<header id="engram-header">
<h1>{safe_title}</h1>
<p class="meta">{html.escape(meta)}</p>
{notice_html}
</header>
<main id="engram-stage">
<div id="engram-canvas" role="img" aria-label="Knowledge graph drawing"></div>
{empty_html}
</main>
<aside id="engram-legend" aria-label="Legend">
<div class="search"><input id="engram-search" type="search" placeholder="Find a node…"
aria-label="Find a node"><ul id="engram-results"></ul></div>
<h2>Node types</h2>
{legend_body}
<p class="hint">Hover a node or edge for its stored fields; click a node to focus it and its
neighbours. Drag the background to pan, the wheel to zoom, a node to move it; click a type to
hide it.</p>
<label class="hint"><input type="checkbox" id="engram-cluster"> colour by cluster</label>
<div class="actions"><button type="button" id="engram-fit">Fit view</button></div>
</aside>
<div id="engram-tooltip" role="tooltip" hidden></div>
<pre id="engram-selftest" hidden></pre>
<script type="application/json" id="engram-data">{_json_for_script(payload)}</script>
<script>
{_asset("graph-renderer.js")}
</script>
</body>
</html>
"""
