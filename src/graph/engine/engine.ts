/**
 * The graph engine of one database handle: the current GraphSnapshot (structure) and TagLayer
 * (asset-group-tag membership as Tag_* kinds), each kept current by the data versions of the tables
 * it is built from (src/db/data-versions.ts: this process's writes at once, another process's SQLite
 * commits within FOREIGN_PROBE_MS, another instance's PostgreSQL commits on their notification).
 * A request asks for `view()`: when the versions moved since the snapshot was made, the delta is
 * read and applied first (load.ts), one refresh at a time, outside the request's deadline scope (a
 * refresh serves every waiting request; the request still answers 504 when its own deadline passes).
 */
import type { Db } from '../../db/create-db.ts';
import { requestScope } from '../../db/deadline.ts';
import { KindLists, KindTable } from './kinds.ts';
import { loadDelta, loadFull, type Loaded } from './load.ts';
import { loadTags, type TagLayer } from './tags.ts';
import { GraphView } from './view.ts';

const GRAPH_TABLES = ['nodes', 'edges'] as const;
const TAG_TABLES = ['asset_group_tags', 'asset_group_tag_members'] as const;
/** How often old change-log rows are pruned, and how old they must be. */
const PRUNE_EVERY_MS = 10 * 60_000;
const PRUNE_AGE_MICROS = 60 * 60 * 1_000_000;

interface Held<T> {
  value: T;
  /** Data-version snapshot taken before the reads (null: versions unusable, always re-check). */
  key: string | null;
}

export class GraphEngine {
  private readonly kinds = new KindTable();
  private readonly lists = new KindLists(this.kinds);
  private graph: Held<Loaded> | null = null;
  private tags: Held<TagLayer> | null = null;
  private pending: Promise<unknown> = Promise.resolve();
  private prunedAt = 0;
  /** Refresh statistics (bench, logs). */
  readonly stats = { fullLoads: 0, deltas: 0, lastLoadMs: 0 };

  constructor(private readonly db: Db) {}

  /** A consistent view of the current graph (structure and tags). */
  async view(): Promise<GraphView> {
    const [graph, tags] = await Promise.all([this.current(), this.currentTags()]);
    return new GraphView(this.db, graph.snapshot, tags);
  }

  private key(tables: readonly string[]): string | null {
    const v = this.db.versions;
    return v.usable() ? v.snapshot(tables) : null;
  }

  private async current(): Promise<Loaded> {
    const key = this.key(GRAPH_TABLES);
    if (this.graph && key !== null && this.graph.key === key) return this.graph.value;
    return this.serialised(async () => {
      if (this.graph && key !== null && this.graph.key === key) return this.graph.value;
      const started = performance.now();
      const held = this.graph?.value;
      const value = held ? await loadDelta(this.db, held) : await loadFull(this.db, this.kinds, this.lists);
      if (value.how !== 'unchanged') {
        if (value.how === 'full') this.stats.fullLoads++;
        else this.stats.deltas++;
        this.stats.lastLoadMs = performance.now() - started;
      }
      this.graph = { value, key };
      this.prune();
      return value;
    });
  }

  private async currentTags(): Promise<TagLayer> {
    const key = this.key(TAG_TABLES);
    if (this.tags && key !== null && this.tags.key === key) return this.tags.value;
    return this.serialised(async () => {
      if (this.tags && key !== null && this.tags.key === key) return this.tags.value;
      const value = await loadTags(this.db);
      this.tags = { value, key };
      return value;
    });
  }

  /** Runs refreshes one after another, outside any request's deadline. */
  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.pending.catch(() => {}).then(() => requestScope.exit(fn));
    this.pending = run;
    return run;
  }

  /** Drops change-log rows older than an hour, at most every ten minutes (never in a request's way). */
  private prune(): void {
    const now = Date.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    const db = this.db.kysely;
    const cutoff = now * 1000 - PRUNE_AGE_MICROS;
    void requestScope.exit(async () => {
      const row = await db.selectFrom('graph_changes').select((eb) => eb.fn.max('id').as('upto')).where('at', '<', cutoff).executeTakeFirst();
      const upto = Number(row?.upto ?? 0);
      if (!upto) return;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('graph_changes').where('id', '<=', upto).execute();
        await trx.updateTable('graph_changes_pruned').set({ upto }).where('id', '=', 1).where('upto', '<', upto).execute();
      });
    }).catch(() => {});
  }
}

const engines = new WeakMap<Db, GraphEngine>();

/** The graph engine of a database handle (one per handle). */
export function graphEngine(db: Db): GraphEngine {
  let engine = engines.get(db);
  if (!engine) engines.set(db, (engine = new GraphEngine(db)));
  return engine;
}
