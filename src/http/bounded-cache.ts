import type { DataVersions } from '../db/data-versions.ts';
import { nowMicros } from '../db/time.ts';

/**
 * A map bounded by the bytes of what it holds (as `sizeOf` counts them when set, plus the key); when
 * full, the oldest entries go first. Entries larger than an eighth of the bound are not kept at all.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; size: number }>();
  private bytes = 0;
  private readonly maxEntryBytes: number;

  constructor(private readonly maxBytes: number, private readonly sizeOf: (value: V) => number) {
    this.maxEntryBytes = Math.max(0, Math.floor(maxBytes / 8));
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: string, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value) + key.length;
    if (size > this.maxEntryBytes) return;
    while (this.bytes + size > this.maxBytes && this.entries.size) this.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, size });
    this.bytes += size;
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= old.size;
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Values kept while the tables they were computed from are unchanged (src/db/data-versions.ts) and
 * until an instant of their own (`validUntil`, epoch microseconds: a session's expiry, the next
 * moment the clock alone could change the answer). Nothing is kept or served while the versions are
 * not usable. The snapshot is taken by `prepare`, BEFORE the reads, so a write landing during them
 * only costs a later miss.
 */
export class VersionedCache<V> {
  private readonly kept: BoundedCache<{ snapshot: string; validUntil: number; value: V }>;

  constructor(private readonly versions: DataVersions, maxBytes: number, sizeOf: (value: V) => number) {
    this.kept = new BoundedCache(maxBytes, (e) => sizeOf(e.value));
  }

  get(key: string, tables: readonly string[]): V | undefined {
    if (!this.versions.usable()) return undefined;
    const e = this.kept.get(key);
    return e && e.snapshot === this.versions.snapshot(tables) && nowMicros() < e.validUntil ? e.value : undefined;
  }

  /** Call before reading; returns what keeps the value those reads produce (again: re-counted). */
  prepare(key: string, tables: readonly string[]): (value: V, validUntil?: number) => void {
    if (!this.versions.usable()) return () => {};
    const snapshot = this.versions.snapshot(tables);
    return (value, validUntil = Infinity) => this.kept.set(key, { snapshot, validUntil, value });
  }
}
