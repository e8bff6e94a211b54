/** objectid → node id for the current transaction; bounded (cleared when full) so memory stays flat. */
export class IdCache {
  private map = new Map<string, number>();
  constructor(private readonly limit = 200_000) {}
  get(objectid: string): number | undefined {
    return this.map.get(objectid);
  }
  set(objectid: string, id: number): void {
    if (this.map.size >= this.limit) this.map.clear();
    this.map.set(objectid, id);
  }
}
