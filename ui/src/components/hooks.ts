import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describe } from '../session.ts';

export interface Async<T> { data: T | undefined; error: string | null; loading: boolean; reload: () => void }

/** Runs `load` when `deps` change; the last answer wins (earlier ones are dropped). */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (err) => live && setState({ data: undefined, error: describe(err), loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  return { ...state, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export interface Paged<T> { items: T[]; count: number | null; error: string | null; loading: boolean; done: boolean; more: () => void; reset: () => void }

/**
 * Pages through a list from the API (skip/limit): `more()` fetches the next page; nothing loads
 * the whole list. Changing `deps` starts again from the first page.
 */
export function usePaged<T>(page: (skip: number, limit: number) => Promise<{ items: T[]; count?: number }>, deps: unknown[], limit = 50): Paged<T> {
  const [state, setState] = useState<{ items: T[]; count: number | null; error: string | null; loading: boolean; done: boolean }>(
    { items: [], count: null, error: null, loading: false, done: false });
  const generation = useRef(0);
  const busy = useRef(false);
  const [tick, setTick] = useState(0);
  const fetchNext = useCallback((skip: number, gen: number) => {
    busy.current = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    page(skip, limit).then(
      ({ items, count }) => {
        if (gen !== generation.current) return;
        busy.current = false;
        setState((s) => {
          const all = skip === 0 ? items : [...s.items, ...items];
          return { items: all, count: count ?? null, error: null, loading: false, done: items.length < limit || (count !== undefined && all.length >= count) };
        });
      },
      (err) => {
        if (gen !== generation.current) return;
        busy.current = false;
        setState((s) => ({ ...s, loading: false, error: describe(err) }));
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => {
    const gen = ++generation.current;
    setState({ items: [], count: null, error: null, loading: true, done: false });
    fetchNext(0, gen);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const current = useRef(state);
  current.current = state;
  const more = useCallback(() => {
    const s = current.current;
    if (!busy.current && !s.done && !s.error) fetchNext(s.items.length, generation.current);
  }, [fetchNext]);
  return { ...state, more, reset: useCallback(() => setTick((t) => t + 1), []) };
}

/** Calls `fn` every `ms` while `active`. */
export function useInterval(fn: () => void, ms: number, active: boolean) {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => saved.current(), ms);
    return () => clearInterval(id);
  }, [ms, active]);
}

/**
 * A user action against the API (create, delete, …): optionally confirmed first, its error kept in
 * words for the screen, `busy` while it runs. `run` resolves to whether it succeeded.
 */
export function useAction() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<unknown>, confirmation?: string): Promise<boolean> => {
    if (confirmation && !confirm(confirmation)) return false;
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError(describe(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { error, busy, run };
}
