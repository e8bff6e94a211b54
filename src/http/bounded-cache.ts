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
