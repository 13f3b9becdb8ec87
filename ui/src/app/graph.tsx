/** The graph explorer: the same renderer as visualize_graph()'s page, fed by /api/v1/graph/view. */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api";
import { mountGraph, type GraphPayload, type GraphView, type NodeRow } from "../graph/renderer";
import { Problem } from "./widgets";

export function GraphTab() {
  const stage = useRef<HTMLDivElement>(null);
  const tip = useRef<HTMLPreElement>(null);
  const [view, setView] = useState<GraphView | null>(null);
  const [payload, setPayload] = useState<GraphPayload | null>(null);
  const [internal, setInternal] = useState(false);
  const [maxNodes, setMaxNodes] = useState(2000);
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<NodeRow[]>([]);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let current: GraphView | null = null;
    api<GraphPayload & { notices: string[] }>("GET", "/api/v1/graph/view", { query: { include_internal: internal, max_nodes: maxNodes } }).then(
      (data) => {
        setPayload(data);
        if (stage.current && data.nodes.length) {
          current = mountGraph(stage.current, data, { tooltip: tip.current ?? undefined });
          setView(current);
        }
      },
      setError,
    );
    return () => current?.kill();
  }, [internal, maxNodes]);

  const notices = (payload as { notices?: string[] } | null)?.notices ?? [];
  return (
    <div class="graph-tab">
      <div class="toolbar row">
        <input type="search" placeholder="Find a node…" aria-label="Find a node" value={query}
          onInput={(e) => { setQuery(e.currentTarget.value); setFound(view?.search(e.currentTarget.value) ?? []); }} />
        <label><input type="checkbox" checked={internal} onChange={(e) => setInternal(e.currentTarget.checked)} /> internal nodes</label>
        <label><input type="checkbox" onChange={(e) => view?.setColorBy(e.currentTarget.checked ? "cluster" : "type")} /> colour by cluster</label>
        <label>max nodes <input type="number" min={1} max={100000} value={maxNodes} onChange={(e) => setMaxNodes(Number(e.currentTarget.value) || 2000)} /></label>
        <span class="muted">{payload ? `${payload.nodes.length} nodes · ${payload.edges.length} edges${view ? ` · ${view.clusters} clusters` : ""}` : "loading…"}</span>
      </div>
      {notices.map((n) => <p class="muted" key={n}>{n}</p>)}
      <Problem error={error} />
      {found.length > 0 && (
        <ul class="found">
          {found.map((row) => <li key={row.id}><button onClick={() => view?.focus(row.id)}>{row.label || row.name} <span class="muted">{row.type}</span></button></li>)}
        </ul>
      )}
      <div class="legend row">
        {(payload?.types ?? []).map((t) => (
          <label key={t.name}><input type="checkbox" defaultChecked onChange={(e) => view?.setTypeVisible(t.name, e.currentTarget.checked)} />
            <span class="swatch" style={{ background: t.color }} /> {t.name} ({t.count})</label>
        ))}
      </div>
      {payload && !payload.nodes.length && <p class="muted">The memory is empty: there is nothing to draw yet.</p>}
      <div ref={stage} class="stage" data-testid="graph-stage" />
      <pre ref={tip} class="tooltip" hidden />
    </div>
  );
}
