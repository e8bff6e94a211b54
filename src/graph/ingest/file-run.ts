/**
 * Reading one document: events of the JSON scanner → format and type → converters → batches handed
 * to a target (the graph writer in-process, or a poster in the parse worker). No database access
 * except through `target.match` (OpenGraph name / property matchers).
 */
import type { EdgeInput, NodeInput } from '../merge.ts';
import type { NodeMatch } from '../bulk/writer.ts';
import { convertAzureHound } from './azurehound.ts';
import type { StreamEvent } from './json-stream.ts';
import { convertOpenGraphNode, parseOpenGraphEdge, type OpenGraphMatch } from './opengraph.ts';
import { convertSharpHound, detectSharpHoundType, SHARPHOUND_TYPES } from './sharphound.ts';
import { collectIfLarge } from './heap-guard.ts';
import { IngestError, normId } from './sink.ts';

export type FileFormat = 'sharphound' | 'azurehound' | 'opengraph';

export interface BatchTarget {
  write(nodes: NodeInput[], edges: EdgeInput[]): Promise<void>;
  /** Absent in the parse worker: a `deleted` file removes nodes from the database. */
  remove?(objectids: string[]): Promise<number>;
  /** In-process only (OpenGraph warnings): placeholders created while set, and which are still placeholders. */
  tracked?: string[] | null;
  placeholdersAmong?(objectids: string[]): Promise<string[]>;
  /** Absent in the parse worker: OpenGraph name / property matchers need the database. */
  match?(match: NodeMatch, limit: number): Promise<string[]>;
}

/** Thrown in the parse worker when the document needs the database (OpenGraph): run it in-process. */
export class NeedsDatabase extends Error {}

export const PENDING_LIMIT = 1_000;
const MAX_WARNINGS = 100;
/** OpenGraph edge ends that created a node, remembered to warn about those still without a description. */
const MAX_DANGLING = 10_000;
const TYPE_IN_NAME = new RegExp(`(?:^|[^a-z])(${SHARPHOUND_TYPES.join('|')})\\.json$`, 'i');

export function typeFromFileName(name: string): string | null {
  const m = TYPE_IN_NAME.exec(name.split(/[\\/]/).pop() ?? '');
  return m ? m[1].toLowerCase() : null;
}

export class FileRun {
  format: FileFormat | null = null;
  type: string | null = null;
  elements = 0;
  warnings: string[] = [];
  private metaSeen = false;
  private sourceKind: string | null = null;
  private pending: StreamEvent[] = [];
  private flushedPending = false;
  private nodes: NodeInput[] = [];
  private edges: EdgeInput[] = [];
  private removals: string[] = [];
  /** graph.edges index of each edge in `edges` (OpenGraph). */
  private edgeIndexes: number[] = [];
  private dangling: Array<{ objectid: string; index: number }> = [];
  private warningCount = 0;
  private skipData = false;
  private readonly sink = {
    node: (n: NodeInput) => this.nodes.push(n),
    edge: (e: EdgeInput) => this.edges.push(e),
    warn: (text: string) => this.warn(text),
  };
  private inFlight: Promise<void> = Promise.resolve();
  /** A batch write has started and not ended (PostgreSQL: its statements are still running). */
  writing = false;
  private ogNodes = 0;
  private ogEdges = 0;

  constructor(private readonly target: BatchTarget, private readonly name: string, private readonly batchSize: number) {}

  async event(ev: StreamEvent): Promise<void> {
    if (ev.type === 'value') return this.value(ev.path, ev.value);
    this.elements++;
    if (ev.path !== 'data') this.setFormat('opengraph', 'opengraph');
    if (this.metaSeen || this.flushedPending) return this.convert(ev);
    if (!this.format && ev.path === 'data' && this.pending.length === 0 && this.typeByName(ev.value)) return this.convert(ev);
    this.pending.push(ev);
    if (this.pending.length >= PENDING_LIMIT) await this.resolvePending();
  }

  private async value(path: string, value: unknown): Promise<void> {
    if (path === 'meta') {
      const meta = value as { type?: unknown; version?: unknown } | null;
      const type = typeof meta?.type === 'string' ? meta.type.toLowerCase() : '';
      if (type === 'azure') this.setFormat('azurehound', 'azure');
      else if (SHARPHOUND_TYPES.includes(type)) this.setFormat('sharphound', type);
      else throw new IngestError(`unsupported meta.type: ${JSON.stringify(meta?.type ?? null)}`);
      if (type === 'computers' && typeof meta?.version === 'number' && meta.version < 5) {
        // BloodHound reads computers only from format version 5 on (older ones hold other shapes).
        this.skipData = true;
        this.warn(`computers data of meta.version ${meta.version} is not read (version 5 or later is)`);
      }
      this.metaSeen = true;
    } else if (path === 'metadata') {
      // "" and null mean "no source kind" (BloodHound's schema allows both; its own exports write "").
      const sk = (value as { source_kind?: unknown } | null)?.source_kind;
      if (sk !== undefined && sk !== null && (typeof sk !== 'string' || (sk !== '' && !/^[A-Za-z0-9_]+$/.test(sk)))) {
        throw new IngestError('metadata.source_kind must match ^[A-Za-z0-9_]+$');
      }
      if (this.flushedPending && sk) throw new IngestError(`metadata must come before more than ${PENDING_LIMIT} graph elements`);
      this.sourceKind = typeof sk === 'string' && sk !== '' ? sk : null;
      this.setFormat('opengraph', 'opengraph');
      this.metaSeen = true;
    } else {
      return; // other top-level members are ignored
    }
    await this.drainPending();
  }

  private setFormat(format: FileFormat, type: string) {
    if (this.format && (this.format !== format || this.type !== type)) {
      throw new IngestError(`the file mixes ${this.type} and ${type} data`);
    }
    if (format === 'opengraph' && !this.format) {
      // OpenGraph is read in-process: its warnings (and name matchers) look at the database.
      if (!this.target.match) throw new NeedsDatabase();
      this.target.tracked = [];
    }
    this.format = format;
    this.type = type;
  }

  /**
   * A SharpHound file named by its type (…_users.json) needs no meta to be read: its elements are
   * converted at once instead of waiting (a meta arriving later must agree).
   */
  private typeByName(first: unknown): boolean {
    const type = typeFromFileName(this.name);
    const f = first as { kind?: unknown; data?: unknown } | null;
    if (!type || (f && typeof f.kind === 'string' && f.data && typeof f.data === 'object')) return false;
    this.setFormat('sharphound', type);
    this.flushedPending = true;
    return true;
  }

  /** Too many elements before meta: decide the type from the name or the objects. */
  private async resolvePending(): Promise<void> {
    if (!this.format) {
      const first = this.pending.find((e) => e.path === 'data')?.value as { kind?: unknown; data?: unknown } | undefined;
      if (first && typeof first.kind === 'string' && first.data && typeof first.data === 'object') this.setFormat('azurehound', 'azure');
      else {
        const type = typeFromFileName(this.name) ?? detectSharpHoundType(first);
        if (!type) throw new IngestError('cannot tell the data type: no meta block, no type in the file name, unknown object shape');
        this.setFormat('sharphound', type);
      }
    }
    this.flushedPending = true;
    await this.drainPending();
  }

  private async drainPending(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    for (const ev of pending) await this.convert(ev);
  }

  private async convert(ev: StreamEvent): Promise<void> {
    if (this.skipData) return;
    if (this.type === 'deleted') return this.removal(ev.value);
    if (this.format === 'sharphound') convertSharpHound(this.type!, ev.value, this.sink);
    else if (this.format === 'azurehound') convertAzureHound(ev.value, this.sink);
    else if (ev.path === 'graph.nodes') convertOpenGraphNode(ev.value, this.ogNodes++, this.sourceKind, this.sink);
    else if (ev.path === 'graph.edges') await this.openGraphEdge(ev.value, this.ogEdges++);
    else throw new IngestError(`unexpected ${ev.path} array in an OpenGraph file`);
  }

  /** A `deleted` file lists object ids (SharpHound writes strings; objects with ObjectIdentifier are read too). */
  private removal(raw: unknown): void {
    const id = normId(typeof raw === 'string' ? raw : (raw as { ObjectIdentifier?: unknown } | null)?.ObjectIdentifier);
    if (!id) throw new IngestError('a deleted entry must be an object id');
    if (!this.target.remove) throw new NeedsDatabase();
    this.removals.push(id);
  }

  private async openGraphEdge(raw: unknown, index: number): Promise<void> {
    const e = parseOpenGraphEdge(raw, index);
    const start = await this.endpoint(e.start);
    const end = await this.endpoint(e.end);
    if (!start || !end) {
      this.warn(`graph.edges[${index}]: ${!start ? 'start' : 'end'} matches no single node; edge skipped`);
      return;
    }
    this.edges.push({ start, end, kind: e.kind, properties: e.properties });
    this.edgeIndexes.push(index);
  }

  private async endpoint(m: OpenGraphMatch): Promise<{ objectid: string; kinds?: string[] } | null> {
    if (m.by === 'id') return { objectid: m.value!, kinds: m.kind ? [m.kind] : undefined };
    if (!this.target.match) throw new NeedsDatabase();
    await this.flush(); // nodes read so far must be visible to the match
    await this.inFlight;
    const found = await this.target.match({ name: m.by === 'name' ? m.value : undefined, kind: m.kind, properties: m.properties }, 2);
    return found.length === 1 ? { objectid: found[0] } : null;
  }

  /** Keeps the first MAX_WARNINGS texts; finish() adds how many more there were. */
  private warn(text: string): void {
    if (this.warningCount++ < MAX_WARNINGS) this.warnings.push(text);
  }

  async maybeFlush(): Promise<void> {
    if (this.nodes.length + this.edges.length + this.removals.length >= this.batchSize) await this.flush();
  }

  /**
   * Hands the batch to the target. At most one write is in flight: with PostgreSQL the next batch
   * is parsed while the server works on this one (SQLite writes synchronously, so nothing overlaps).
   */
  async flush(): Promise<void> {
    if (!this.nodes.length && !this.edges.length && !this.removals.length) return;
    const nodes = this.nodes;
    const edges = this.edges;
    const removals = this.removals;
    const indexes = this.edgeIndexes;
    this.nodes = [];
    this.edges = [];
    this.removals = [];
    this.edgeIndexes = [];
    await this.inFlight;
    this.writing = true;
    const batch = nodes.length || edges.length ? this.target.write(nodes, edges) : Promise.resolve();
    const write = batch
      .then(() => (removals.length ? this.target.remove!(removals) : undefined))
      .then(() => this.noteDangling(edges, indexes))
      .then(collectIfLarge)
      .finally(() => {
        this.writing = false;
      });
    write.catch(() => {}); // awaited by the next flush or by finish()
    this.inFlight = write;
  }

  /** OpenGraph: the edge ends of this batch that created a node (checked again at the end of the file). */
  private noteDangling(edges: EdgeInput[], indexes: number[]): void {
    const created = this.target.tracked;
    if (!created?.length) return;
    const first = new Map<string, number>();
    edges.forEach((e, j) => {
      if (!first.has(e.start.objectid)) first.set(e.start.objectid, indexes[j]);
      if (!first.has(e.end.objectid)) first.set(e.end.objectid, indexes[j]);
    });
    for (const objectid of created.splice(0)) {
      if (this.dangling.length < MAX_DANGLING) this.dangling.push({ objectid, index: first.get(objectid) ?? -1 });
    }
  }

  /** Warnings for edge ends that named no node, of this file or of the graph (BloodHound creates such nodes too). */
  private async warnDangling(): Promise<void> {
    if (!this.dangling.length || !this.target.placeholdersAmong) return;
    const still = new Set(await this.target.placeholdersAmong(this.dangling.map((d) => d.objectid)));
    for (const d of this.dangling) {
      if (still.has(d.objectid)) this.warn(`graph.edges[${d.index}]: no node has the id ${JSON.stringify(d.objectid)}; it was created without properties`);
    }
  }

  /** Waits for the write in flight, whatever its outcome: call before rolling back after an error. */
  async settle(): Promise<void> {
    await this.inFlight.catch(() => {});
  }

  /** `graph`: the document has a `graph` object (an OpenGraph file, even with no element). */
  async finish(seen: { graph?: boolean } = {}): Promise<void> {
    if (!this.format && seen.graph) this.setFormat('opengraph', 'opengraph');
    if (this.pending.length) await this.resolvePending();
    if (!this.format) throw new IngestError('the file holds no SharpHound, AzureHound or OpenGraph data');
    await this.flush();
    await this.inFlight;
    await this.warnDangling();
    if (this.warningCount > MAX_WARNINGS) this.warnings.push(`… and ${this.warningCount - MAX_WARNINGS} more warnings`);
  }
}
