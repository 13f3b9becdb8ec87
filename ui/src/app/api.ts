/** The REST client of the web UI: every call goes to the server's own /api/v1 routes with the
 * signed-in API key; a problem document becomes an ApiError with its title and detail. */

const KEY = "engramdb.apiKey";

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

export const session = {
  get key(): string {
    return sessionStorage.getItem(KEY) ?? "";
  },
  set key(value: string) {
    if (value) sessionStorage.setItem(KEY, value);
    else sessionStorage.removeItem(KEY);
  },
};

// `engramdb ui` opens /ui/#key=<key>: the fragment never reaches a server; keep the key in this
// tab's session storage and take it out of the address bar (and the history).
if (window.location.hash.startsWith("#key=")) {
  session.key = decodeURIComponent(window.location.hash.slice(5));
  history.replaceState(null, "", window.location.pathname + window.location.search);
}

/** The server root: the UI is served at <root>/ui/. */
export const root = new URL("../", window.location.href).href.replace(/\/$/, "");

type Query = Record<string, string | number | boolean | string[] | undefined | null>;

function url(path: string, query?: Query): string {
  const u = new URL(root + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === "") continue;
    for (const item of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(item));
  }
  return u.href;
}

export async function api<T>(method: string, path: string, options: { query?: Query; json?: unknown; form?: FormData } = {}): Promise<T> {
  const headers: Record<string, string> = { Authorization: `Bearer ${session.key}` };
  let body: BodyInit | undefined;
  if (options.json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.form) {
    body = options.form;
  }
  const response = await fetch(url(path, options.query), { method, headers, body });
  const text = await response.text();
  const data: unknown = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const problem = (data ?? {}) as { title?: string; detail?: string };
    throw new ApiError(response.status, [problem.title, problem.detail].filter(Boolean).join(": ") || response.statusText);
  }
  return data as T;
}

export interface Dataset { id: string; name: string; owner_id?: string; created_at?: string }
export interface DataItem {
  id: string; name: string; label?: string | null; status: string; importance_weight: number;
  node_set: string[]; external_metadata?: Record<string, unknown> | null; mime_type: string;
  chunk_count: number; data_size?: number | null; created_at?: string | null;
  /** The name a person reads (a pasted text's first words rather than its text_<hash> name). */
  title?: string | null;
}
export interface RecallEntry { kind?: string; source: string; search_type?: string; text?: string; score?: number | null; dataset_name?: string | null; metadata?: Record<string, unknown>; raw?: Record<string, unknown>; answer?: string; question?: string; [field: string]: unknown }
export interface SessionRecord { session_id: string; created_at: string; updated_at: string }
export interface QAEntry { qa_id: string; question: string; answer: string; context: string; time: string; feedback_score?: number | null; feedback_text?: string | null }
export interface ConflictFact { edge_id: string; text: string; value: string; label: string; effective_date?: string | null }
export interface Conflict { id: string; entity_name: string; attribute: string; explanation: string; resolved_fact_id?: string | null; facts: ConflictFact[] }
export interface Stage { stage: string; status: string; duration_ms: number; reason?: string | null; counts: Record<string, number>; error?: string | null }
export interface ImproveRun { run_id: string; dataset_name: string; status: string; started_at: string; finished_at?: string | null; error?: string | null; stages: Stage[] }

/** The search types the server knows, from its own OpenAPI document. */
export async function searchTypes(): Promise<string[]> {
  const doc = (await (await fetch(root + "/openapi.json")).json()) as { components: { schemas: Record<string, { enum?: string[] }> } };
  return doc.components.schemas.SearchType?.enum ?? [];
}
