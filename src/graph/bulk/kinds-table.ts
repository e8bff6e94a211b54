/**
 * Small codes for the kinds lists of nodes (a collection has a few dozen distinct ones), so that the
 * id cache can remember a node's kinds in the bits of its entry, and "does the node already have
 * these kinds?" is a lookup. Code 0 = unknown (the table is full, or the kinds were not known).
 */
export class KindsTable {
  private readonly texts: string[] = [''];
  private readonly lists: string[][] = [[]];
  private readonly byText = new Map<string, number>();
  private readonly byList = new Map<readonly string[], number>();
  private readonly covers = new Map<number, boolean>();
  constructor(private readonly size: number) {}

  codeOfText(text: string): number {
    let code = this.byText.get(text);
    if (code !== undefined) return code;
    if (this.texts.length >= this.size) return 0;
    code = this.texts.length;
    this.texts.push(text);
    this.lists.push(JSON.parse(text) as string[]);
    this.byText.set(text, code);
    return code;
  }

  /** Frozen lists (the converters share them) are remembered by identity: no serialising per edge. */
  codeOfList(list: readonly string[]): number {
    const known = this.byList.get(list);
    if (known !== undefined) return known;
    const code = this.codeOfText(JSON.stringify(list));
    if (Object.isFrozen(list) && this.byList.size < this.size) this.byList.set(list, code);
    return code;
  }

  list(code: number): string[] {
    return this.lists[code];
  }

  /** Whether the kinds of `node` include every kind of `end` (false when either is unknown). */
  includes(node: number, end: number): boolean {
    if (node === end) return node !== 0;
    if (node === 0 || end === 0) return false;
    const key = node * this.size + end;
    let yes = this.covers.get(key);
    if (yes === undefined) {
      const have = this.lists[node];
      yes = this.lists[end].every((k) => have.includes(k));
      this.covers.set(key, yes);
    }
    return yes;
  }
}
