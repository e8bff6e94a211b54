/**
 * objectid → node id, for the transactions of one ingest run (committed ids never change: nodes are
 * never deleted or renumbered; a transaction that fails clears the cache, so ids it inserted and
 * rolled back are forgotten). Bounded so memory stays flat (~100 bytes an
 * entry): two generations of at most `limit / 2` entries each; when the young one is full it becomes
 * the old one (the previous old one is dropped), and a hit in the old generation is carried into the
 * young one. Ids that edges keep naming (well-known groups, busy principals) therefore survive a
 * turnover, where clearing everything at the limit made every following lookup a database read.
 */
export class IdCache {
  private young = new Map<string, number>();
  private old = new Map<string, number>();
  constructor(private readonly limit = 500_000) {}

  get(objectid: string): number | undefined {
    const id = this.young.get(objectid);
    if (id !== undefined) return id;
    const older = this.old.get(objectid);
    if (older !== undefined) this.set(objectid, older);
    return older;
  }

  set(objectid: string, id: number): void {
    if (this.young.size >= this.limit / 2) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(objectid, id);
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }
}
