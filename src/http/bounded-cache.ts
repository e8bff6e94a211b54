import type { DataVersions } from '../db/data-versions.ts';
import { nowMicros } from '../db/time.ts';

/**
 * Which entry goes when a bounded cache is full: the oldest, or one at random. Random suits values asked in a cycle
 * (collection clients polling on an interval): there the oldest is the next one asked, so a cache smaller than the
 * cycle would never be hit, while random eviction keeps about the share of the cycle that fits.
 */
export type Eviction = 'oldest' | 'random';

/** An entry, linked in the order it was set (oldest first). */
interface Node<V> {
  key: string;
  value: V;
  size: number;
  /** Its index in `keys` (random eviction), else -1. */
  slot: number;
  older: Node<V> | null;
  newer: Node<V> | null;
}

/**
 * A map bounded by the bytes of what it holds (as `sizeOf` counts them when set, plus the key); when
 * full, entries go (the oldest first, or at random: Eviction). Entries larger than an eighth of the bound are not
 * kept at all.
 *
 * The oldest entry is the head of a list linked through the entries, not the Map's first key: V8 leaves a deleted
 * entry's slot in a Map's backing store until the table is rebuilt, and `keys().next()` walks over all of them, so
 * with oldest-first eviction (delete the first, add at the end) finding the oldest cost time linear in the entries
 * (≈ 14 µs per eviction at 13,000 entries, on every fill of a full response cache).
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, Node<V>>();
  /** The keys, for a random pick (random eviction only). */
  private readonly keys: string[] = [];
  private oldest: Node<V> | null = null;
  private newest: Node<V> | null = null;
  private bytes = 0;
  private readonly maxEntryBytes: number;

  constructor(private readonly maxBytes: number, private readonly sizeOf: (value: V) => number, private readonly eviction: Eviction = 'oldest') {
    this.maxEntryBytes = Math.max(0, Math.floor(maxBytes / 8));
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: string, value: V): void {
    this.delete(key);
    const size = this.sizeOf(value) + key.length;
    if (size > this.maxEntryBytes) return;
    while (this.bytes + size > this.maxBytes && this.oldest !== null) {
      this.delete(this.eviction === 'random' ? this.keys[Math.floor(Math.random() * this.keys.length)] : this.oldest.key);
    }
    const node: Node<V> = { key, value, size, slot: -1, older: this.newest, newer: null };
    if (this.eviction === 'random') node.slot = this.keys.push(key) - 1;
    if (this.newest) this.newest.newer = node;
    else this.oldest = node;
    this.newest = node;
    this.entries.set(key, node);
    this.bytes += size;
  }

  delete(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= old.size;
    if (old.older) old.older.newer = old.newer;
    else this.oldest = old.newer;
    if (old.newer) old.newer.older = old.older;
    else this.newest = old.older;
    if (old.slot >= 0) {
      // The last key takes the freed slot.
      const last = this.keys.pop()!;
      if (old.slot < this.keys.length) {
        this.keys[old.slot] = last;
        this.entries.get(last)!.slot = old.slot;
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Whether a new entry would now make another go (within an eighth of the bound: the largest entry kept). A cache
   * that is full under values asked once (distinct requests) evicts one per fill; its caller may then keep only what
   * is asked again (see Admission).
   */
  get full(): boolean {
    return this.bytes + this.maxEntryBytes > this.maxBytes;
  }
}

/**
 * Which new entries a full cache takes: a value asked once (most of what distinct requests make) would push out one
 * that may be asked again, and keeping it costs its bytes and a few objects that live long enough to be moved to V8's
 * old generation, which then fills with them and is marked and compacted every second or so (at large scale, the
 * most expensive work of a poll after the socket write). So, once the cache is full, a value is kept at its second
 * time (`seenBefore`): one 32-bit tag per slot of a table of integers (no object per value); a collision only keeps a
 * value at its first time, or at its third. While the cache has room every value is kept.
 */
export class Admission {
  private readonly tags = new Int32Array(1 << 16);

  /** Records `key` (with `salt`, a string that tells keys apart cheaply: an ETag) and says whether it came before. */
  seenBefore(key: string, salt = ''): boolean {
    let h = 0x811c9dc5;
    for (let i = 0; i < salt.length; i++) h = Math.imul(h ^ salt.charCodeAt(i), 0x01000193);
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b); // murmur3's finaliser: FNV-1a's low bits alone are poorly spread
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    const slot = h & (this.tags.length - 1);
    const tag = h | 1; // never the empty slot's 0
    if (this.tags[slot] === tag) return true;
    this.tags[slot] = tag;
    return false;
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

  constructor(private readonly versions: DataVersions, maxBytes: number, sizeOf: (value: V) => number, eviction: Eviction = 'oldest') {
    this.kept = new BoundedCache(maxBytes, (e) => sizeOf(e.value), eviction);
  }

  get(key: string, tables: readonly string[]): V | undefined {
    if (!this.versions.usable()) return undefined;
    const e = this.kept.get(key);
    return e && e.snapshot === this.versions.snapshot(tables) && nowMicros() < e.validUntil ? e.value : undefined;
  }

  /** Whether a new entry would make another go (BoundedCache.full). */
  get full(): boolean {
    return this.kept.full;
  }

  /** Call before reading; returns what keeps the value those reads produce (again: re-counted). */
  prepare(key: string, tables: readonly string[]): (value: V, validUntil?: number) => void {
    if (!this.versions.usable()) return () => {};
    const snapshot = this.versions.snapshot(tables);
    return (value, validUntil = Infinity) => this.kept.set(key, { snapshot, validUntil, value });
  }
}
