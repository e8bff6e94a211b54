/**
 * objectid → node id and kinds, for the transactions of one ingest run (committed ids never change:
 * nodes are never renumbered; a transaction that fails clears the cache, so ids it inserted and
 * rolled back are forgotten; a node deleted by a `deleted` file is forgotten with it). Bounded so
 * memory stays flat (~100 bytes an entry): two generations of at most `limit / 2` entries each; when
 * the young one is full it becomes the old one (the previous old one is dropped), and a hit in the
 * old generation is carried into the young one. Ids that edges keep naming (well-known groups, busy
 * principals) therefore survive a turnover.
 *
 * An entry packs the id and a code for the node's kinds (KindsTable), so that an edge end whose kinds
 * the node already has costs no database read (BloodHound adds an edge end's kinds to its node).
 */
import { KindsTable } from './kinds-table.ts';

const CODES = 4096;
export const idOf = (entry: number) => Math.floor(entry / CODES);
export const codeOf = (entry: number) => entry % CODES;

export class IdCache {
  private young = new Map<string, number>();
  private old = new Map<string, number>();
  readonly kinds = new KindsTable(CODES);
  constructor(private readonly limit = 500_000) {}

  /** The packed entry (idOf / codeOf), or undefined. */
  entry(objectid: string): number | undefined {
    const e = this.young.get(objectid);
    if (e !== undefined) return e;
    const older = this.old.get(objectid);
    if (older !== undefined) this.put(objectid, older);
    return older;
  }

  get(objectid: string): number | undefined {
    const e = this.entry(objectid);
    return e === undefined ? undefined : idOf(e);
  }

  /** `kinds`: the node's kinds as stored (JSON text) or as an array; absent = not known. */
  set(objectid: string, id: number, kinds?: string | readonly string[]): void {
    const code = kinds === undefined ? 0 : typeof kinds === 'string' ? this.kinds.codeOfText(kinds) : this.kinds.codeOfList(kinds);
    this.put(objectid, id * CODES + code);
  }

  delete(objectid: string): void {
    this.young.delete(objectid);
    this.old.delete(objectid);
  }

  private put(objectid: string, entry: number): void {
    if (this.young.size >= this.limit / 2) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(objectid, entry);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }
}
