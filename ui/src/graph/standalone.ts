/**
 * visualize_graph()'s offline page: reads the JSON data block, mounts the shared renderer into
 * the page Python wrote, wires the legend, search and colour controls, and publishes
 * window.__engramGraph = {ready, firstRenderMs, nodes, edges, clusters} once the first frame is
 * drawn. Opened as page.html#engram-selftest it also writes a JSON report into
 * <pre id="engram-selftest"> (a headless browser's --dump-dom reads it): JS errors, counts, the
 * hover card of every node and edge, a dispatched hover, zoom, pan, drag and legend toggle.
 */
import { mountGraph, type GraphPayload, type GraphView } from "./renderer";
import "./graph.css";

declare global {
  interface Window {
    __engramGraph?: { ready: boolean; firstRenderMs: number; sinceNavigationMs: number; nodes: number; edges: number; clusters: number };
  }
}

const errors: string[] = [];
window.addEventListener("error", (ev) => errors.push(String(ev.message || ev.error || "unknown error")));
window.addEventListener("unhandledrejection", (ev) => errors.push("unhandled rejection: " + String(ev.reason)));

const sleep = (ms: number) => new Promise<void>((done) => window.setTimeout(done, ms));
const byId = (id: string) => document.getElementById(id);

function wireControls(view: GraphView): void {
  document.querySelectorAll<HTMLLIElement>("#engram-legend li[data-type]").forEach((item) => {
    const button = item.querySelector("button");
    button?.addEventListener("click", () => {
      const on = button.getAttribute("aria-pressed") !== "true";
      button.setAttribute("aria-pressed", String(on));
      item.classList.toggle("off", !on);
      view.setTypeVisible(item.dataset.type ?? "", on);
    });
  });
  byId("engram-fit")?.addEventListener("click", () => {
    view.focus(null);
    void view.sigma.getCamera().animatedReset();
  });
  const cluster = byId("engram-cluster") as HTMLInputElement | null;
  cluster?.addEventListener("change", () => view.setColorBy(cluster.checked ? "cluster" : "type"));
  const search = byId("engram-search") as HTMLInputElement | null;
  const results = byId("engram-results") as HTMLUListElement | null;
  if (!search || !results) return;
  search.addEventListener("input", () => {
    results.replaceChildren(
      ...view.search(search.value).map((row) => {
        const li = document.createElement("li");
        const b = document.createElement("button");
        b.type = "button";
        b.textContent = `${row.label || row.name} (${row.type})`;
        b.addEventListener("click", () => view.focus(row.id));
        li.append(b);
        return li;
      }),
    );
  });
  search.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      const first = view.search(search.value, 1)[0];
      if (first) view.focus(first.id);
    }
  });
}

function painted(container: HTMLElement, view: GraphView): number {
  view.sigma.refresh();
  const { width, height } = container.getBoundingClientRect();
  const out = document.createElement("canvas");
  out.width = Math.max(1, Math.round(width));
  out.height = Math.max(1, Math.round(height));
  const ctx = out.getContext("2d")!;
  container.querySelectorAll("canvas").forEach((c) => ctx.drawImage(c, 0, 0, out.width, out.height));
  const image = ctx.getImageData(0, 0, out.width, out.height).data;
  let count = 0;
  for (let p = 0; p < image.length; p += 16) if (image[p + 3] > 40) count += 1;
  return count;
}

function mouse(target: Element, type: string, x: number, y: number, extra: MouseEventInit = {}): void {
  const box = target.getBoundingClientRect();
  const init = { clientX: box.left + x, clientY: box.top + y, bubbles: true, cancelable: true, ...extra };
  target.dispatchEvent(type === "wheel" ? new WheelEvent(type, init) : new MouseEvent(type, init));
}

async function selfTest(container: HTMLElement, view: GraphView, payload: GraphPayload): Promise<void> {
  const out = byId("engram-selftest");
  if (!out || window.location.hash !== "#engram-selftest") return;
  const tip = byId("engram-tooltip")!;
  const layer = container.querySelector(".sigma-mouse") ?? container;
  const camera = view.sigma.getCamera();
  const report: Record<string, unknown> = {
    ready: true,
    nodeCount: view.graph.order,
    edgeCount: payload.edges.length,
    iterations: view.iterations(),
    clusters: view.clusters,
    tooltips: Object.fromEntries(payload.nodes.map((n) => [n.id, view.nodeTooltip(n.id)])),
    edgeTooltips: Object.fromEntries(payload.edges.map((e) => [e.id, view.edgeTooltip(e.id)])),
    painted: painted(container, view),
    hover: null,
    interactions: null,
    errors,
  };
  const first = payload.nodes[0];
  if (first) {
    const at = view.sigma.graphToViewport(view.graph.getNodeAttributes(first.id) as { x: number; y: number });
    mouse(layer, "mousemove", at.x, at.y);
    await sleep(50);
    report.hover = { id: first.id, visible: !tip.hidden, text: tip.textContent };
    const before = { ...view.graph.getNodeAttributes(first.id) } as { x: number; y: number };
    mouse(layer, "mousedown", at.x, at.y, { button: 0 });
    mouse(layer, "mousemove", at.x + 40, at.y + 30);
    mouse(layer, "mouseup", at.x + 40, at.y + 30);
    await sleep(50);
    const after = view.graph.getNodeAttributes(first.id) as { x: number; y: number };
    const dragged = after.x !== before.x || after.y !== before.y;
    mouse(layer, "mousemove", 2, 2);
    const c0 = camera.getState();
    mouse(layer, "mousedown", 5, 5, { button: 0 });
    mouse(layer, "mousemove", 60, 45, { button: 0 });
    mouse(layer, "mousemove", 90, 70, { button: 0 });
    mouse(layer, "mouseup", 90, 70);
    await sleep(100);
    const c1 = camera.getState();
    await sleep(400); // the pan's inertia has ended
    const c1b = camera.getState();
    mouse(layer, "wheel", 200, 200, { deltaY: -240 } as WheelEventInit);
    // The zoom animates over animation frames, which a headless browser on virtual time may
    // not run: an animation the wheel started counts as well.
    const animating = camera.isAnimated();
    await sleep(600);
    const c2 = camera.getState();
    const legend = document.querySelector<HTMLLIElement>(`#engram-legend li[data-type="${CSS.escape(first.type)}"] button`);
    legend?.click();
    const hid = view.sigma.getNodeDisplayData(first.id)?.hidden === true;
    legend?.click();
    const again = view.sigma.getNodeDisplayData(first.id)?.hidden === false;
    report.interactions = {
      zoomed: c2.ratio !== c1b.ratio || animating,
      panned: c1.x !== c0.x || c1.y !== c0.y,
      dragged,
      hidType: hid,
      showedTypeAgain: again,
    };
  }
  tip.hidden = false; // a screenshot shows the card of the last hovered node
  out.textContent = JSON.stringify(report);
}

function main(): void {
  const started = performance.now();
  const block = byId("engram-data");
  const container = byId("engram-canvas");
  if (!block || !container) return;
  const payload = JSON.parse(block.textContent || "{}") as GraphPayload;
  const status = { ready: false, firstRenderMs: 0, sinceNavigationMs: 0, nodes: payload.nodes.length, edges: payload.edges.length, clusters: 0 };
  window.__engramGraph = status;
  if (!payload.nodes.length) {
    status.ready = true;
    void selfTestEmpty();
    return;
  }
  let view: GraphView;
  try {
    view = mountGraph(container, payload, {
      tooltip: byId("engram-tooltip") ?? undefined,
      onFirstRender: () => {
        status.firstRenderMs = Math.round(performance.now() - started);
        status.sinceNavigationMs = Math.round(performance.now());
        status.ready = true;
        void selfTest(container, view, payload).catch((e: unknown) => errors.push(String(e)));
      },
    });
  } catch (e) {
    errors.push(String(e));
    container.textContent = "This browser could not draw the graph (it needs WebGL): " + String(e);
    void selfTestEmpty();
    return;
  }
  status.clusters = view.clusters;
  wireControls(view);
}

async function selfTestEmpty(): Promise<void> {
  const out = byId("engram-selftest");
  if (out && window.location.hash === "#engram-selftest") {
    out.textContent = JSON.stringify({ ready: true, nodeCount: 0, edgeCount: 0, iterations: 0, tooltips: {}, edgeTooltips: {}, painted: 0, errors });
  }
}

main();
