import { useEffect, useState } from 'preact/hooks';

/** A value with subscribers; `useStore` re-renders a component when it changes. */
export class Store<T> {
  #value: T;
  readonly #listeners = new Set<(v: T) => void>();
  constructor(value: T) {
    this.#value = value;
  }
  get(): T {
    return this.#value;
  }
  set(value: T): void {
    this.#value = value;
    for (const l of this.#listeners) l(value);
  }
  subscribe(listener: (v: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => {
    setValue(store.get());
    return store.subscribe(setValue);
  }, [store]);
  return value;
}
