/** engramdb's web UI: sign in with an API key, then datasets, remember, recall, the graph,
 * sessions, improve and conflicts, all over the server's REST API. */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, session, root, type Dataset, type DataItem } from "./api";
import { Confirm, Problem, useAsync } from "./widgets";
import { GraphTab } from "./graph";
import { ConflictsTab, ImproveTab, RecallTab, RememberTab, SessionsTab } from "./tabs";
import "./style.css";

const TABS = ["Datasets", "Remember", "Recall", "Graph", "Sessions", "Improve", "Conflicts"] as const;
type Tab = (typeof TABS)[number];

function SignIn({ onDone }: { onDone: (email: string) => void }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<unknown>(null);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    session.key = key.trim();
    try {
      const me = await api<{ email: string }>("GET", "/api/v1/users/me");
      onDone(me.email);
    } catch (e) {
      session.key = "";
      setError(e);
    }
  };
  return (
    <form class="card signin" onSubmit={submit}>
      <h1>engramdb</h1>
      <p>Sign in with an API key (<code>engramdb users keys create you@example.com</code>).</p>
      <input name="api-key" type="password" autocomplete="off" placeholder="egm_…" value={key} onInput={(e) => setKey(e.currentTarget.value)} autoFocus />
      <button type="submit">Sign in</button>
      <Problem error={error} />
    </form>
  );
}

function Documents({ dataset, reload }: { dataset: Dataset; reload: () => void }) {
  const items = useAsync(() => api<DataItem[]>("GET", `/api/v1/datasets/${dataset.id}/data`), [dataset.id]);
  const status = useAsync(() => api<Record<string, unknown>>("GET", "/api/v1/datasets/status", { query: { dataset_ids: [dataset.id] } }), [dataset.id]);
  const [forget, setForget] = useState<DataItem | "dataset" | null>(null);
  const [done, setDone] = useState<string>("");
  const doForget = async () => {
    const body = forget === "dataset" ? { dataset_id: dataset.id } : { data_id: (forget as DataItem).id };
    const result = await api<Record<string, number>>("POST", "/api/v1/forget", { json: body });
    setDone(`Forgot ${result.nodes ?? 0} nodes, ${result.edges ?? 0} edges, ${result.data_records ?? 0} documents.`);
    setForget(null);
    items.reload();
    if (forget === "dataset") reload();
  };
  const last = status.value ? Object.values(status.value)[0] : undefined;
  return (
    <section class="card">
      <header class="row">
        <h2>{dataset.name}</h2>
        <span class="muted">last run: {typeof last === "string" ? last : last ? JSON.stringify(last) : "—"}</span>
        <button class="danger" onClick={() => setForget("dataset")}>Forget dataset…</button>
      </header>
      {done && <p class="ok">{done}</p>}
      <Problem error={items.error} />
      <table>
        <thead><tr><th>Document</th><th>Weight</th><th>Node sets</th><th>Status</th><th>Metadata</th><th /></tr></thead>
        <tbody>
          {(items.value ?? []).map((d) => (
            <tr key={d.id}>
              <td title={d.name}>{d.title || d.name}<div class="muted">{d.label ? `${d.label} · ` : ""}{d.mime_type} · {d.chunk_count} chunks</div></td>
              <td>{d.importance_weight}</td>
              <td>{d.node_set.join(", ") || "—"}</td>
              <td>{d.status}</td>
              <td><code>{d.external_metadata ? JSON.stringify(d.external_metadata) : "—"}</code></td>
              <td><button class="danger" onClick={() => setForget(d)}>Forget…</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {forget && (
        <Confirm
          title={forget === "dataset" ? `Forget the dataset “${dataset.name}”?` : `Forget the document ${(forget as DataItem).title || (forget as DataItem).name}?`}
          text="Its documents, chunks, graph nodes and vectors are deleted. This cannot be undone."
          action="Forget"
          onConfirm={doForget}
          onCancel={() => setForget(null)}
        />
      )}
    </section>
  );
}

function DatasetsTab() {
  const list = useAsync(() => api<Dataset[]>("GET", "/api/v1/datasets"), []);
  const [open, setOpen] = useState<string | null>(null);
  const shown = list.value ?? [];
  const current = shown.find((d) => d.id === open) ?? shown[0];
  return (
    <div class="split">
      <nav class="card list" aria-label="Datasets">
        <h2>Datasets</h2>
        <Problem error={list.error} />
        {!shown.length && !list.loading && <p class="muted">No datasets yet: remember something first.</p>}
        <ul>
          {shown.map((d) => (
            <li key={d.id}><button class={current?.id === d.id ? "on" : ""} onClick={() => setOpen(d.id)}>{d.name}</button></li>
          ))}
        </ul>
      </nav>
      {current && <Documents dataset={current} reload={list.reload} />}
    </div>
  );
}

function App() {
  const [email, setEmail] = useState<string | null>(null);
  const [tab, setTab] = useState<Tab>("Datasets");
  useEffect(() => {
    if (session.key) api<{ email: string }>("GET", "/api/v1/users/me").then((me) => setEmail(me.email), () => (session.key = ""));
  }, []);
  if (!email) return <SignIn onDone={setEmail} />;
  return (
    <div class="app">
      <header class="top">
        <strong>engramdb</strong>
        <nav>
          {TABS.map((t) => (
            <button key={t} class={t === tab ? "on" : ""} onClick={() => setTab(t)}>{t}</button>
          ))}
        </nav>
        <span class="muted">{email}</span>
        <a href={`${root}/docs`} target="_blank" rel="noreferrer">API docs</a>
        <button onClick={() => { session.key = ""; setEmail(null); }}>Sign out</button>
      </header>
      <main>
        {tab === "Datasets" && <DatasetsTab />}
        {tab === "Remember" && <RememberTab />}
        {tab === "Recall" && <RecallTab />}
        {tab === "Graph" && <GraphTab />}
        {tab === "Sessions" && <SessionsTab />}
        {tab === "Improve" && <ImproveTab />}
        {tab === "Conflicts" && <ConflictsTab />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
