/**
 * The one graph renderer of engramdb: visualize_graph()'s offline page and the web UI's graph
 * explorer both call mountGraph(). WebGL drawing is sigma.js over a graphology graph; the layout
 * starts from Louvain communities (each cluster placed on a spiral, its nodes around it), so the
 * first frame is already readable, then ForceAtlas2 refines it in a web worker for a bounded time.
 *
 * Level of detail: node size grows with importance (stored importance_weight times a degree
 * term), sigma shows the labels of the largest nodes first and culls the rest by screen density,
 * and on large graphs edges are hidden while zoomed out unless they touch the focused node.
 * Stored text is only ever shown through textContent and canvas text.
 */
import Graph from "graphology";
import louvain from "graphology-communities-louvain";
import forceAtlas2 from "graphology-layout-forceatlas2";
import FA2Layout from "graphology-layout-forceatlas2/worker";
import Sigma from "sigma";

export interface NodeRow {
  id: string;
  type: string;
  name: string;
  label?: string;
  importance_weight?: number | string | null;
  [field: string]: unknown;
}

export interface EdgeRow {
  id: string;
  source: string;
  target: string;
  relation: string;
  [field: string]: unknown;
}

export interface TypeRow {
  name: string;
  color: string;
  count: number;
}

export interface GraphPayload {
  title: string;
  nodes: NodeRow[];
  edges: EdgeRow[];
  types: TypeRow[];
}

declare global {
  interface Window {
    /** The graph on screen (for automation and tests: positions, search, focus). */
    __engramView?: GraphView;
  }
}

export interface MountOptions {
  /** Element the hover card is written into (hidden when nothing is hovered). */
  tooltip?: HTMLElement;
  /** Milliseconds ForceAtlas2 may refine the layout after the first frame (0: none). */
  layoutMs?: number;
  /** Called after the first frame was drawn, with the milliseconds since mountGraph(). */
  onFirstRender?: (ms: number) => void;
}

export interface GraphView {
  sigma: Sigma;
  graph: Graph;
  /** Centre the camera on a node and highlight it and its neighbours; false when unknown. */
  focus(id: string | null): boolean;
  /** Nodes whose label, name or id contain the query, most important first. */
  search(query: string, limit?: number): NodeRow[];
  setTypeVisible(type: string, visible: boolean): void;
  setColorBy(mode: "type" | "cluster"): void;
  /** The text the hover card shows for a node or an edge (every stored field). */
  nodeTooltip(id: string): string;
  edgeTooltip(id: string): string;
  /** Communities found (clusters). */
  clusters: number;
  iterations(): number;
  kill(): void;
}

const TEXT_PREVIEW = 280;
const VALUE_PREVIEW = 240;
const LABEL_CHARS = 32;
/** Above this many edges, edges are drawn only when zoomed in (or touching the focus). */
const LOD_EDGES = 4000;
const LOD_RATIO = 0.35;
const FADED = "#e3e5e8";
const CLUSTER_COLORS = [
  "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#2f4b7c",
];

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return clip(value, VALUE_PREVIEW);
  if (Array.isArray(value)) return clip(value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", "), VALUE_PREVIEW);
  if (typeof value === "object") return clip(JSON.stringify(value), VALUE_PREVIEW);
  return String(value);
}

/** "key: value" lines of every stored field; nested properties as properties.<key>. */
export function fieldLines(row: Record<string, unknown>, skip: readonly string[] = []): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(row)) {
    if (skip.includes(key)) continue;
    if (key === "properties" && value && typeof value === "object" && !Array.isArray(value)) {
      for (const [pk, pv] of Object.entries(value as Record<string, unknown>)) {
        lines.push(`properties.${pk}: ${show(pv)}`);
      }
    } else if (key === "text") {
      lines.push(`text: ${clip(String(value ?? ""), TEXT_PREVIEW)}`);
    } else {
      lines.push(`${key}: ${show(value)}`);
    }
  }
  return lines;
}

function weight(row: NodeRow): number {
  const w = Number(row.importance_weight);
  return Number.isFinite(w) ? Math.max(0.05, w) : 0.5;
}

/** Deterministic pseudo-random numbers, so the same graph lays out the same way. */
function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** Communities placed on a golden-angle spiral (radius ~ sqrt of their size), nodes around
 * their community's centre: a clustered first frame without any force iteration. */
function initialLayout(graph: Graph, community: Map<string, number>): void {
  const members = new Map<number, string[]>();
  graph.forEachNode((node) => {
    const c = community.get(node) ?? 0;
    const list = members.get(c);
    if (list) list.push(node);
    else members.set(c, [node]);
  });
  const groups = [...members.values()].sort((a, b) => b.length - a.length);
  const golden = Math.PI * (3 - Math.sqrt(5));
  let placed = 0;
  const rand = seeded(graph.order * 7919 + graph.size);
  groups.forEach((nodes, index) => {
    const spread = Math.sqrt(placed + nodes.length / 2) * 12;
    const cx = index === 0 ? 0 : Math.cos(index * golden) * spread;
    const cy = index === 0 ? 0 : Math.sin(index * golden) * spread;
    const radius = Math.sqrt(nodes.length) * 4;
    nodes.forEach((node, i) => {
      const r = radius * Math.sqrt((i + rand()) / nodes.length);
      const a = i * golden + rand() * 0.3;
      graph.mergeNodeAttributes(node, { x: cx + Math.cos(a) * r, y: cy + Math.sin(a) * r });
    });
    placed += nodes.length;
  });
}

export function mountGraph(container: HTMLElement, payload: GraphPayload, options: MountOptions = {}): GraphView {
  const started = performance.now();
  const colors = new Map(payload.types.map((t) => [t.name, t.color]));
  const rows = new Map<string, NodeRow>();
  const edgeRows = new Map<string, EdgeRow>();
  const graph = new Graph({ type: "undirected", multi: false, allowSelfLoops: false });
  for (const row of payload.nodes) {
    rows.set(row.id, row);
    graph.addNode(row.id, { x: 0, y: 0 });
  }
  for (const row of payload.edges) {
    edgeRows.set(row.id, row);
    if (row.source === row.target || !graph.hasNode(row.source) || !graph.hasNode(row.target)) continue;
    const existing = graph.edge(row.source, row.target);
    if (existing !== undefined) {
      (graph.getEdgeAttribute(existing, "ids") as string[]).push(row.id);
    } else {
      graph.addEdgeWithKey(row.id, row.source, row.target, { ids: [row.id], size: 0.6, color: "#c4c9d0" });
    }
  }

  // Importance: the stored weight times a degree term; it sizes nodes and ranks labels.
  let top = 0;
  const importance = new Map<string, number>();
  graph.forEachNode((node) => {
    const score = weight(rows.get(node)!) * Math.log2(2 + graph.degree(node));
    importance.set(node, score);
    top = Math.max(top, score);
  });
  const ranked = [...importance.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  const forced = new Set(ranked.slice(0, Math.min(12, Math.ceil(ranked.length / 50) + 4)));

  const community = new Map<string, number>();
  if (graph.size > 0) {
    const parts = louvain(graph, { randomWalk: false, rng: seeded(42) });
    for (const [node, c] of Object.entries(parts)) community.set(node, c);
  }
  const clusters = new Set(community.values()).size || (graph.order ? 1 : 0);
  initialLayout(graph, community);

  graph.forEachNode((node) => {
    const row = rows.get(node)!;
    const label = clip(String(row.label || row.name || row.id), LABEL_CHARS);
    graph.mergeNodeAttributes(node, {
      label,
      size: 2.5 + 9 * Math.sqrt((importance.get(node) ?? 0) / (top || 1)),
      color: colors.get(row.type) ?? "#888",
      forceLabel: forced.has(node),
      nodeType: row.type,
      cluster: community.get(node) ?? 0,
    });
  });

  let iterationsRun = 0;
  if (graph.order <= 1500 && graph.size > 0) {
    // Small graphs: a synchronous refinement is fast and makes the first frame final.
    const settings = forceAtlas2.inferSettings(graph);
    iterationsRun = graph.order <= 300 ? 200 : 60;
    forceAtlas2.assign(graph, { iterations: iterationsRun, settings: { ...settings, barnesHutOptimize: graph.order > 300 } });
  }

  const hidden = new Set<string>();
  let focused: string | null = null;
  let hovered: string | null = null;
  let neighbours = new Set<string>();
  let colorBy: "type" | "cluster" = "type";
  const lod = graph.size > LOD_EDGES;
  let drawn: Sigma | null = null; // the reducers run inside sigma's constructor already
  const cameraRatio = (): number => drawn?.getCamera().ratio ?? 1;

  const sigma = new Sigma(graph, container, {
    renderEdgeLabels: false,
    labelRenderedSizeThreshold: 7,
    labelDensity: 0.6,
    labelGridCellSize: 90,
    hideEdgesOnMove: lod,
    zIndex: true,
    enableEdgeEvents: graph.size <= LOD_EDGES,
    defaultEdgeColor: "#c4c9d0",
    nodeReducer: (node, data) => {
      const out: Record<string, unknown> = { ...data };
      if (hidden.has(data.nodeType as string)) return { ...out, hidden: true };
      if (colorBy === "cluster") out.color = CLUSTER_COLORS[(data.cluster as number) % CLUSTER_COLORS.length];
      const center = hovered ?? focused;
      if (center) {
        if (node === center || neighbours.has(node)) {
          out.forceLabel = true;
          out.zIndex = 2;
          if (node === center) out.highlighted = true;
        } else {
          out.color = FADED;
          out.label = "";
          out.zIndex = 0;
        }
      }
      return out;
    },
    edgeReducer: (edge, data) => {
      const [s, t] = graph.extremities(edge);
      if (hidden.has(graph.getNodeAttribute(s, "nodeType")) || hidden.has(graph.getNodeAttribute(t, "nodeType"))) {
        return { ...data, hidden: true };
      }
      const center = hovered ?? focused;
      if (center) {
        return s === center || t === center ? { ...data, color: "#5b6470", size: 1.2, zIndex: 1 } : { ...data, hidden: true };
      }
      if (lod && cameraRatio() > LOD_RATIO) return { ...data, hidden: true };
      return data;
    },
  });

  drawn = sigma;
  const tip = options.tooltip;
  const nodeTooltip = (id: string): string => {
    const row = rows.get(id);
    if (!row) return "";
    const degree = graph.hasNode(id) ? graph.degree(id) : 0;
    return [...fieldLines(row), `cluster: ${community.get(id) ?? 0}`, `degree: ${degree}`].join("\n");
  };
  const edgeTooltip = (id: string): string => {
    const row = edgeRows.get(id);
    if (!row) return "";
    const ends = [rows.get(row.source), rows.get(row.target)].map((r) => (r ? r.label || r.name : "?"));
    return [`${ends[0]} → ${ends[1]}`, ...fieldLines(row)].join("\n");
  };
  const place = (x: number, y: number): void => {
    if (!tip) return;
    const box = container.getBoundingClientRect();
    tip.style.left = `${Math.min(box.left + x + 14, window.innerWidth - 380)}px`;
    tip.style.top = `${Math.min(box.top + y + 14, window.innerHeight - 200)}px`;
  };
  const setNeighbours = (center: string | null): void => {
    neighbours = new Set(center && graph.hasNode(center) ? graph.neighbors(center) : []);
  };

  sigma.on("enterNode", ({ node, event }) => {
    hovered = node;
    setNeighbours(node);
    if (tip) {
      tip.textContent = nodeTooltip(node);
      tip.hidden = false;
      place(event.x, event.y);
    }
    sigma.refresh({ skipIndexation: true });
  });
  sigma.on("leaveNode", () => {
    hovered = null;
    setNeighbours(focused);
    if (tip) tip.hidden = true;
    sigma.refresh({ skipIndexation: true });
  });
  sigma.on("enterEdge", ({ edge, event }) => {
    if (!tip) return;
    const ids = graph.getEdgeAttribute(edge, "ids") as string[];
    tip.textContent = ids.map(edgeTooltip).join("\n\n");
    tip.hidden = false;
    place(event.x, event.y);
  });
  sigma.on("leaveEdge", () => {
    if (tip) tip.hidden = true;
  });
  sigma.on("clickNode", ({ node }) => view.focus(node === focused ? null : node));
  sigma.on("clickStage", () => view.focus(null));
  sigma.getCamera().on("updated", () => {
    if (lod) sigma.refresh({ skipIndexation: true });
  });

  // Drag a node to move it.
  let dragged: string | null = null;
  sigma.on("downNode", ({ node }) => {
    dragged = node;
    sigma.getCamera().disable();
  });
  sigma.getMouseCaptor().on("mousemovebody", (event) => {
    if (!dragged) return;
    const pos = sigma.viewportToGraph(event);
    graph.mergeNodeAttributes(dragged, { x: pos.x, y: pos.y });
    event.preventSigmaDefault();
    event.original.preventDefault();
  });
  sigma.getMouseCaptor().on("mouseup", () => {
    dragged = null;
    sigma.getCamera().enable();
  });

  let layout: FA2Layout | null = null;
  const layoutMs = options.layoutMs ?? 4000;
  if (graph.order > 1500 && graph.size > 0 && layoutMs > 0) {
    try {
      const settings = forceAtlas2.inferSettings(graph);
      layout = new FA2Layout(graph, { settings: { ...settings, barnesHutOptimize: true } });
      layout.start();
      window.setTimeout(() => layout?.stop(), layoutMs);
    } catch {
      layout = null; // no worker (a strict page policy): the clustered first frame stays
    }
  }

  const view: GraphView = {
    sigma,
    graph,
    clusters,
    iterations: () => iterationsRun + (layout ? 1 : 0),
    focus(id) {
      if (id === null) {
        focused = null;
        setNeighbours(hovered);
        sigma.refresh({ skipIndexation: true });
        return true;
      }
      if (!graph.hasNode(id)) return false;
      focused = id;
      setNeighbours(id);
      const data = sigma.getNodeDisplayData(id);
      if (data) sigma.getCamera().animate({ x: data.x, y: data.y, ratio: Math.min(sigma.getCamera().ratio, 0.15) }, { duration: 400 });
      sigma.refresh({ skipIndexation: true });
      return true;
    },
    search(query, limit = 12) {
      const q = query.trim().toLowerCase();
      if (!q) return [];
      const found: NodeRow[] = [];
      for (const id of ranked) {
        const row = rows.get(id)!;
        if (String(row.label ?? "").toLowerCase().includes(q) || row.name.toLowerCase().includes(q) || id.startsWith(q)) {
          found.push(row);
          if (found.length >= limit) break;
        }
      }
      return found;
    },
    setTypeVisible(type, visible) {
      if (visible) hidden.delete(type);
      else hidden.add(type);
      sigma.refresh({ skipIndexation: true });
    },
    setColorBy(mode) {
      colorBy = mode;
      sigma.refresh({ skipIndexation: true });
    },
    nodeTooltip,
    edgeTooltip,
    kill() {
      layout?.kill();
      sigma.kill();
    },
  };
  // The first frame is drawn synchronously above; report once the browser painted it (the
  // timer covers a headless browser on virtual time, where animation frames may not come).
  let reported = false;
  const report = (): void => {
    if (reported) return;
    reported = true;
    options.onFirstRender?.(performance.now() - started);
  };
  window.__engramView = view;
  requestAnimationFrame(report);
  window.setTimeout(report, 100);
  return view;
}
