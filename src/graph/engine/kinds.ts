/**
 * Kind names interned as small integers (node kinds and edge kinds share one table, append-only for
 * the life of the engine, so ids stay valid across snapshots), and interned kind lists (a node's
 * `kinds` JSON text → one id; a million nodes have a few dozen distinct lists).
 */
export const MAX_KINDS = 65_535;

export class KindTable {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];

  /** The id of a kind, interning it. */
  intern(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      if (this.names.length >= MAX_KINDS) throw new Error(`more than ${MAX_KINDS} distinct kinds`);
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  /** The id of a known kind, or -1 (a kind nothing carries). */
  get(name: string): number {
    return this.ids.get(name) ?? -1;
  }

  name(id: number): string {
    return this.names[id];
  }

  /** A membership mask over kind ids for a set of names (unknown names are simply absent). */
  mask(names: Iterable<string>): KindMask {
    const mask = new Uint8Array(MAX_KINDS + 1);
    for (const n of names) {
      const id = this.get(n);
      if (id >= 0) mask[id] = 1;
    }
    return mask;
  }
}

/** mask[kindId] === 1 when the kind is in the set. */
export type KindMask = Uint8Array;

/** Distinct kind lists; list 0 is the empty list (a node the snapshot does not hold). */
export class KindLists {
  private readonly ids = new Map<string, number>([['[]', 0]]);
  /** Kind ids of each list, primary kind first. */
  readonly lists: Uint16Array[] = [new Uint16Array(0)];

  constructor(private readonly kinds: KindTable) {}

  /** The id of a node's `kinds` column text (JSON array, primary first). */
  intern(json: string): number {
    let id = this.ids.get(json);
    if (id === undefined) {
      const names = parseKindList(json);
      id = this.lists.length;
      this.lists.push(Uint16Array.from(names, (n) => this.kinds.intern(n)));
      this.ids.set(json, id);
    }
    return id;
  }
}

function parseKindList(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === 'string') : [];
  } catch {
    return [];
  }
}
