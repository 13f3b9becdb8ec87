/** Small shared pieces: loading data, showing a problem, a confirmation dialog, a field list. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Async<T> { value: T | null; error: unknown; loading: boolean; reload: () => void }

export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ value: T | null; error: unknown; loading: boolean }>({ value: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => live && setState({ value, error: null, loading: false }),
      (error: unknown) => live && setState({ value: null, error, loading: false }),
    );
    return () => { live = false; };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function Problem({ error }: { error: unknown }) {
  if (!error) return null;
  return <p class="problem" role="alert">{error instanceof Error ? error.message : String(error)}</p>;
}

export function Confirm(props: { title: string; text: string; action: string; onConfirm: () => Promise<void>; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => ref.current?.showModal(), []);
  return (
    <dialog ref={ref} class="confirm" onCancel={props.onCancel}>
      <h3>{props.title}</h3>
      <p>{props.text}</p>
      <Problem error={error} />
      <div class="row">
        <button onClick={props.onCancel}>Cancel</button>
        <button class="danger" onClick={() => props.onConfirm().catch(setError)}>{props.action}</button>
      </div>
    </dialog>
  );
}

/** Every field of an object as a definition list (nested objects as JSON). */
export function Fields({ value }: { value: Record<string, unknown> }) {
  return (
    <dl class="fields">
      {Object.entries(value).map(([k, v]) => [
        <dt key={`${k}-k`}>{k}</dt>,
        <dd key={`${k}-v`}>{typeof v === "string" ? v : JSON.stringify(v)}</dd>,
      ])}
    </dl>
  );
}
