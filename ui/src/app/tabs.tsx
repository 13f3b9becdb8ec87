/** Remember, recall playground, sessions, improve runs and conflicts. */
import { useEffect, useState } from "preact/hooks";
import { api, searchTypes, type Conflict, type Dataset, type ImproveRun, type QAEntry, type RecallEntry, type SessionRecord, type Stage } from "./api";
import { Fields, Problem, useAsync } from "./widgets";

/** recall()'s scopes (engramdb.retrieval.scopes.KNOWN_SCOPES); empty: the server's default. */
const SCOPES = ["", "graph", "session", "trace", "session_context", "session_first", "all", "auto", "tools", "code"];

function DatasetPicker({ value, onChange, allowAll, label = "Dataset" }: { value: string; onChange: (v: string) => void; allowAll?: boolean; label?: string }) {
  const list = useAsync(() => api<Dataset[]>("GET", "/api/v1/datasets"), []);
  return (
    <select aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
      {allowAll && <option value="">every dataset</option>}
      {(list.value ?? []).map((d) => <option key={d.id} value={d.name}>{d.name}</option>)}
    </select>
  );
}

export function RememberTab() {
  const [dataset, setDataset] = useState("main_dataset");
  const [text, setText] = useState("");
  const [files, setFiles] = useState<FileList | null>(null);
  const [weight, setWeight] = useState(0.5);
  const [nodeSet, setNodeSet] = useState("");
  const [result, setResult] = useState<Record<string, unknown> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const sets = nodeSet.split(",").map((s) => s.trim()).filter(Boolean);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    setError(null);
    try {
      if (files && files.length) {
        const form = new FormData();
        for (const f of Array.from(files)) form.append("files", f);
        form.append("dataset_name", dataset);
        form.append("importance_weight", String(weight));
        for (const s of sets) form.append("node_set", s);
        setResult(await api("POST", "/api/v1/remember", { form }));
      } else {
        setResult(await api("POST", "/api/v1/remember", { json: { data: text, dataset_name: dataset, importance_weight: weight, node_set: sets.length ? sets : null } }));
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit}>
      <h2>Remember</h2>
      <label>Dataset <input name="dataset" value={dataset} onInput={(e) => setDataset(e.currentTarget.value)} /></label>
      <textarea name="text" rows={8} placeholder="Paste text to remember…" value={text} onInput={(e) => setText(e.currentTarget.value)} />
      <label>…or upload files <input type="file" multiple onChange={(e) => setFiles(e.currentTarget.files)} /></label>
      <div class="row">
        <label>importance weight <input type="number" step="0.1" min="0" max="1" value={weight} onInput={(e) => setWeight(Number(e.currentTarget.value))} /></label>
        <label>node sets <input placeholder="comma separated" value={nodeSet} onInput={(e) => setNodeSet(e.currentTarget.value)} /></label>
      </div>
      <button type="submit" disabled={busy || (!text.trim() && !(files && files.length))}>{busy ? "Remembering…" : "Remember"}</button>
      <Problem error={error} />
      {result && <div class="ok"><Fields value={result} /></div>}
    </form>
  );
}

function Evidence({ entry }: { entry: RecallEntry }) {
  const breakdown = (entry.metadata?.score_breakdown ?? entry.raw?.score_breakdown ?? entry.metadata?.scores) as Record<string, unknown> | undefined;
  return (
    <li class="card result">
      <div class="row">
        <strong>{entry.search_type ?? entry.source}</strong>
        <span class="muted">{[entry.source, entry.kind, entry.dataset_name].filter(Boolean).join(" · ")}</span>
        {entry.score != null && <span class="score">score {entry.score.toFixed(3)}</span>}
      </div>
      <p class="text">{entry.text ?? (entry.question != null ? `Q: ${entry.question}\nA: ${entry.answer ?? ""}` : entry.answer)}</p>
      {breakdown && <details open><summary>Score breakdown</summary><Fields value={breakdown} /></details>}
      <details><summary>Evidence and metadata</summary><Fields value={entry.metadata || entry.raw ? { ...entry.metadata, ...entry.raw } : entry} /></details>
    </li>
  );
}

export function RecallTab() {
  const types = useAsync(searchTypes, []);
  const [query, setQuery] = useState("");
  const [type, setType] = useState("");
  const [scope, setScope] = useState("");
  const [dataset, setDataset] = useState("");
  const [sessionId, setSessionId] = useState("");
  const [topK, setTopK] = useState(10);
  const [verbose, setVerbose] = useState(true);
  const [onlyContext, setOnlyContext] = useState(false);
  const [results, setResults] = useState<RecallEntry[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setError(null);
    try {
      setResults(await api<RecallEntry[]>("POST", "/api/v1/recall", {
        json: { query_text: query, query_type: type || null, scope: scope || null, session_id: sessionId.trim() || null, datasets: dataset ? [dataset] : null, top_k: topK, verbose, only_context: onlyContext },
      }));
    } catch (e) {
      setError(e);
      setResults(null);
    }
  };
  return (
    <div>
      <form class="card" onSubmit={submit}>
        <h2>Recall playground</h2>
        <input name="query" placeholder="Ask your memory…" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        <div class="row">
          <label>search type <select aria-label="Search type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            <option value="">auto</option>
            {(types.value ?? []).map((t) => <option key={t} value={t}>{t}</option>)}
          </select></label>
          <label>scope <select aria-label="Scope" value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
            {SCOPES.map((s) => <option key={s} value={s}>{s || "default"}</option>)}
          </select></label>
          <label>session <input name="session_id" placeholder="session id (session lanes)" value={sessionId} onInput={(e) => setSessionId(e.currentTarget.value)} /></label>
          <label>dataset <DatasetPicker value={dataset} onChange={setDataset} allowAll /></label>
          <label>top_k <input type="number" min={1} max={1000} value={topK} onInput={(e) => setTopK(Number(e.currentTarget.value))} /></label>
          <label><input type="checkbox" checked={verbose} onChange={(e) => setVerbose(e.currentTarget.checked)} /> verbose</label>
          <label><input type="checkbox" checked={onlyContext} onChange={(e) => setOnlyContext(e.currentTarget.checked)} /> only context</label>
        </div>
        <button type="submit" disabled={!query.trim()}>Recall</button>
        <Problem error={error} />
      </form>
      {results && (results.length ? <ol class="results">{results.map((r, i) => <Evidence key={i} entry={r} />)}</ol> : <p class="muted">Nothing found.</p>)}
    </div>
  );
}

function Entries({ id }: { id: string }) {
  const entries = useAsync(() => api<QAEntry[]>("GET", `/api/v1/sessions/${encodeURIComponent(id)}/entries`), [id]);
  const rate = async (qa: QAEntry, score: number) => {
    const text = window.prompt("Feedback (optional)", qa.feedback_text ?? "") ?? undefined;
    await api("POST", `/api/v1/sessions/${encodeURIComponent(id)}/feedback`, { json: { qa_id: qa.qa_id, feedback_score: score, feedback_text: text || null } });
    entries.reload();
  };
  return (
    <div>
      <Problem error={entries.error} />
      {(entries.value ?? []).map((qa) => (
        <div class="card" key={qa.qa_id}>
          <p><strong>Q:</strong> {qa.question}</p>
          <p><strong>A:</strong> {qa.answer}</p>
          <div class="row">
            <span class="muted">{qa.time}</span>
            <span>rating: {qa.feedback_score ?? "—"}{qa.feedback_text ? ` · “${qa.feedback_text}”` : ""}</span>
            {[1, 2, 3, 4, 5].map((s) => <button key={s} title={`Rate ${s}`} onClick={() => void rate(qa, s)}>{s}★</button>)}
          </div>
        </div>
      ))}
      {entries.value && !entries.value.length && <p class="muted">No entries.</p>}
    </div>
  );
}

export function SessionsTab() {
  const list = useAsync(() => api<SessionRecord[]>("GET", "/api/v1/sessions"), []);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div class="split">
      <nav class="card list" aria-label="Sessions">
        <h2>Sessions</h2>
        <Problem error={list.error} />
        {list.value && !list.value.length && <p class="muted">No sessions yet.</p>}
        <ul>{(list.value ?? []).map((s) => <li key={s.session_id}><button class={open === s.session_id ? "on" : ""} onClick={() => setOpen(s.session_id)}>{s.session_id}<div class="muted">{s.updated_at}</div></button></li>)}</ul>
      </nav>
      {open && <Entries id={open} />}
    </div>
  );
}

/** When a run started and how long it took (still running: no duration). */
function when(run: ImproveRun): string {
  const started = new Date(run.started_at);
  const took = run.finished_at ? ` · ${((new Date(run.finished_at).getTime() - started.getTime()) / 1000).toFixed(1)} s` : "";
  return started.toLocaleString() + took;
}

function StageCell({ stage }: { stage: Stage }) {
  const counts = Object.entries(stage.counts ?? {}).map(([k, v]) => `${k} ${v}`).join(", ");
  const why = stage.error ?? stage.reason;
  return (
    <li class={`stage-${stage.status}`} title={why ?? undefined}>
      <strong>{stage.stage}</strong> {stage.status}
      {stage.duration_ms ? <span class="muted"> {Math.round(stage.duration_ms)} ms</span> : null}
      {counts && <span class="muted"> · {counts}</span>}
      {why && <span class="muted"> · {why}</span>}
    </li>
  );
}

/** Run improve() on a dataset, and the table of past runs (list_improve_runs) with their stages. */
export function ImproveTab() {
  const [dataset, setDataset] = useState("");
  const [filter, setFilter] = useState("");
  const runs = useAsync(() => api<ImproveRun[]>("GET", "/api/v1/improve/runs", { query: { dataset: filter || null } }), [filter]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await api("POST", "/api/v1/improve", { json: { dataset } });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
      runs.reload();
    }
  };
  return (
    <div>
      <div class="card row">
        <h2>Improve</h2>
        <DatasetPicker value={dataset} onChange={setDataset} />
        <button onClick={() => void run()} disabled={busy || !dataset}>{busy ? "Improving…" : "Run improve"}</button>
        <Problem error={error} />
      </div>
      <section class="card">
        <header class="row">
          <h2>Improve runs</h2>
          <label>of <DatasetPicker label="Runs of dataset" value={filter} onChange={setFilter} allowAll /></label>
          <button onClick={runs.reload}>Refresh</button>
        </header>
        <Problem error={runs.error} />
        {runs.value && !runs.value.length && <p class="muted">No improve runs yet.</p>}
        {!!runs.value?.length && (
          <table class="runs">
            <thead><tr><th>Started</th><th>Dataset</th><th>Status</th><th>Stages</th></tr></thead>
            <tbody>
              {runs.value.map((r) => (
                <tr key={r.run_id} data-run={r.run_id}>
                  <td>{when(r)}</td>
                  <td>{r.dataset_name}</td>
                  <td class={`status-${r.status}`}>{r.status}{r.error && <div class="problem">{r.error}</div>}</td>
                  <td><ul class="stages">{r.stages.map((s) => <StageCell key={s.stage} stage={s} />)}</ul></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

export function ConflictsTab() {
  const [status, setStatus] = useState<"open" | "resolved" | "">("open");
  const list = useAsync(() => api<Conflict[]>("GET", "/api/v1/conflicts", { query: { status: status || null } }), [status]);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => setError(null), [status]);
  const resolve = async (c: Conflict, factId: string) => {
    try {
      await api("POST", `/api/v1/conflicts/${c.id}/resolve`, { json: { fact_id: factId } });
      list.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div>
      <div class="card row">
        <h2>Conflicts</h2>
        <select aria-label="Status" value={status} onChange={(e) => setStatus(e.currentTarget.value as "open" | "resolved" | "")}>
          <option value="open">open</option><option value="resolved">resolved</option><option value="">all</option>
        </select>
      </div>
      <Problem error={list.error ?? error} />
      {list.value && !list.value.length && <p class="muted">No conflicts.</p>}
      {(list.value ?? []).map((c) => (
        <section class="card" key={c.id}>
          <h3>{c.entity_name} · {c.attribute}</h3>
          <p>{c.explanation}</p>
          <ul>
            {c.facts.map((f) => (
              <li key={f.edge_id} class="row">
                <span>{f.text}</span>
                <span class="muted">{f.label}{f.effective_date ? ` · effective ${f.effective_date}` : ""}</span>
                {c.resolved_fact_id === f.edge_id ? <strong>chosen</strong> : <button onClick={() => void resolve(c, f.edge_id)}>This one is right</button>}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
