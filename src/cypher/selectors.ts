import { sql, type Kysely, type Transaction } from 'kysely';
import type { Db } from '../db/create-db.ts';
import type { Database } from '../db/database.ts';
import { GraphView } from '../graph/engine/index.ts';
import { KindLists, KindTable } from '../graph/engine/kinds.ts';
import { runPlan } from '../graph/engine/read.ts';
import { SnapshotBuilder, type GraphSnapshot } from '../graph/engine/snapshot.ts';
import { loadTags } from '../graph/engine/tags.ts';
import { collectIfLarge } from '../graph/ingest/heap-guard.ts';
import type { PatternPart } from './ast.ts';
import { CypherError } from './errors.ts';
import { executeQuery } from './execute.ts';
import { GraphSource, SMALL_SCAN, type GraphSourceOptions, type ScanSpec } from './graph-source.ts';
import { expandTypes } from './macros.ts';
import { prepareCypher, type PreparedQuery } from './prepare.ts';
import { NodeRef, PathValue, RelRef, type Value } from './values.ts';

/**
 * Cypher seeds of asset group tag selectors (seed type 2, as BloodHound's default Tier Zero
 * selectors): the nodes a selector's queries return (nodes, and the nodes of returned paths and
 * relationships) are its seeds, expanded like object-id seeds. Read-only queries only.
 */
export const CYPHER_SEED = 2;

/** BloodHound's checks of a selector's seeds; the message of the first failure, or null. */
export function seedsError(seeds: ReadonlyArray<{ type: number; value: string }>): string | null {
  for (const seed of seeds) if (seed.type !== 1 && seed.type !== CYPHER_SEED) return `invalid seed type ${seed.type}`;
  if (seeds.some((seed) => seed.type !== seeds[0].type)) return 'all seeds must be of the same type';
  for (const seed of seeds) {
    if (seed.type !== CYPHER_SEED) continue;
    const error = cypherSeedError(seed.value);
    if (error) return error;
  }
  return null;
}

/** Why a seed's Cypher cannot be a selector (BloodHound's `cypher is invalid: <err>`), or null. */
export function cypherSeedError(text: string): string | null {
  try {
    prepareCypher(text);
    return null;
  } catch (err) {
    if (err instanceof CypherError) return `cypher is invalid: ${err.message}`;
    throw err;
  }
}

const enabledCypherSeeds = (db: Db) => db.kysely.selectFrom('asset_group_tag_selector_seeds as d')
  .innerJoin('asset_group_tag_selectors as s', 's.id', 'd.selector_id')
  .select(['s.id as selectorId', 's.asset_group_tag_id as tagId', 'd.value']).where('s.disabled_at', 'is', null)
  .where('d.type', '=', CYPHER_SEED).orderBy('s.id');

/**
 * The node ids each enabled selector of a tag selects through its Cypher seeds. `graph`: what the
 * queries read; by default the graph engine's current view (cheap when it is loaded already, as in
 * a server answering queries), or a SeedGraph shared by the tags of one refresh after an ingest.
 */
export async function cypherSeedNodes(db: Db, tagId: number, graph?: SeedGraph): Promise<Map<number, Set<number>>> {
  const seeds = await enabledCypherSeeds(db).where('s.asset_group_tag_id', '=', tagId).execute();
  const out = new Map<number, Set<number>>();
  const source = new SelectorSource(db, seeds.length && graph ? await graph.snapshot() : null);
  for (const seed of seeds) {
    const ids = out.get(Number(seed.selectorId)) ?? new Set<number>();
    out.set(Number(seed.selectorId), ids);
    try {
      const result = await executeQuery(prepareCypher(seed.value), source);
      const visit = (v: Value) => {
        if (v instanceof NodeRef) ids.add(v.id);
        else if (v instanceof RelRef) ids.add(v.start).add(v.end);
        else if (v instanceof PathValue) v.nodes.forEach((n) => ids.add(n.id));
        else if (Array.isArray(v)) v.forEach(visit);
      };
      for (const row of result.rows) for (const c of result.columns) visit(row[c] ?? null);
    } catch (err) {
      // A seed that cannot run (now too expensive, say) selects nothing; the others still count.
      if (!(err instanceof CypherError)) throw err;
    }
  }
  return out;
}

/** Stages the Cypher-selected nodes of a tag's selectors for the membership statement (inside its transaction). */
export async function stageCypherSeeds(trx: Kysely<Database> | Transaction<Database>, tagId: number, nodes: Map<number, Set<number>>): Promise<void> {
  await trx.deleteFrom('asset_group_tag_selector_cypher_nodes').where('selector_id', 'in',
    trx.selectFrom('asset_group_tag_selectors').select('id').where('asset_group_tag_id', '=', tagId)).execute();
  const rows = [...nodes].flatMap(([selectorId, ids]) => [...ids].map((nodeId) => ({ selector_id: selectorId, node_id: nodeId })));
  for (let i = 0; i < rows.length; i += 500) await trx.insertInto('asset_group_tag_selector_cypher_nodes').values(rows.slice(i, i + 500)).execute();
}

/**
 * The graph structure the Cypher seeds of a whole-graph refresh read (after an ingest): every node,
 * and only the edges of the kinds their relationship patterns name, read once for every tag of the
 * refresh. A seed query sees no difference: it cannot reach an edge of another kind. When a pattern
 * names no kind (or a seed fails to parse, and so reads nothing) — the engine's full view. On a large
 * graph this is a fraction of the full snapshot's time and memory (the default selectors name two
 * edge kinds: MemberOf and HostsCAService; a 6-million-edge graph holds 1.3 million of them).
 */
export class SeedGraph {
  private loaded: Promise<GraphSnapshot | null> | null = null;

  constructor(private readonly db: Db) {}

  /** The restricted snapshot, or null when some seed needs every edge kind. */
  snapshot(): Promise<GraphSnapshot | null> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  private async load(): Promise<GraphSnapshot | null> {
    const kinds = new Set<string>();
    for (const seed of await enabledCypherSeeds(this.db).execute()) {
      let prepared: PreparedQuery;
      try {
        prepared = prepareCypher(seed.value);
      } catch (err) {
        if (err instanceof CypherError) continue; // selects nothing (cypherSeedNodes)
        throw err;
      }
      for (const p of patternsOf(prepared)) {
        for (const r of p.rels) {
          if (r.types.length === 0) return null;
          for (const t of expandTypes(r.types)) kinds.add(t);
        }
      }
    }
    return loadRestricted(this.db, [...kinds]);
  }
}

/** Every pattern of a query (MATCH / pattern expressions / comprehensions, at any depth). */
function patternsOf(prepared: PreparedQuery): PatternPart[] {
  const out: PatternPart[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    if ('nodes' in v && 'rels' in v && 'shortest' in v) out.push(v as PatternPart);
    for (const x of Object.values(v)) visit(x);
  };
  visit(prepared.query);
  return out;
}

/**
 * Every node and the edges of `kinds`, in one read transaction (as the engine's full load), each
 * row handed to the builder as it is read (in id order: nothing is held but the snapshot).
 */
async function loadRestricted(db: Db, kinds: string[]): Promise<GraphSnapshot> {
  const table = new KindTable();
  const builder = new SnapshotBuilder(table, new KindLists(table));
  // Each row read is garbage at once; V8 would let it pile up (tens of MB of RSS on a large graph).
  let rows = 0;
  await runPlan(db, function* () {
    yield {
      sql: 'select id, kinds, environment_id from nodes where id > ? order by id', params: [0], pageById: true,
      each: (r) => {
        builder.addNode(Number(r[0]), r[1] as string, r[2] as string | null);
        if (++rows % GC_EVERY === 0) collectIfLarge();
      },
    };
    if (kinds.length === 0) return;
    yield {
      sql: `select id, start_id, end_id, kind from edges where kind in (${kinds.map(() => '?').join(', ')}) and id > ? order by id`,
      params: [...kinds, 0], pageById: true,
      each: (r) => {
        builder.addEdge(Number(r[0]), Number(r[1]), Number(r[2]), r[3] as string);
        if (++rows % GC_EVERY === 0) collectIfLarge();
      },
    };
  });
  collectIfLarge();
  return builder.build();
}

/** Scans by kind for the selectors: the predicates of a scan over a small kind run on its rows only. */
export class SelectorSource extends GraphSource {
  private ownView: Promise<GraphView> | null = null;

  /**
   * Without the node store (node-store.ts): a refresh after an ingest would read every node's properties
   * into it (≈ 120 MB held, 0.7–0.9 GB of peak RSS at 300,000 users) to answer a few scans, in the import's
   * process too, where nothing reads it afterwards; the selectors' own paths (SQL on a kind's rows, the
   * objectid tails alone) cost a fraction of that. A server's first Cypher query reads the store itself.
   */
  constructor(db: Db, private readonly restricted: GraphSnapshot | null, options: GraphSourceOptions = {}) {
    super(db, { ...options, store: false });
  }

  override view(): Promise<GraphView> {
    if (!this.restricted) return super.view();
    this.ownView ??= loadTags(this.db).then((tags) => new GraphView(this.db, this.restricted!, tags));
    return this.ownView;
  }

  /**
   * A kind held by at most half of the nodes: its predicates are tested in SQL on its rows, looked up
   * by id, instead of on every node of the table (42 default selectors, most of them over Group, were
   * each a pass over the whole table). The same ids as the base scan: those of the kind that pass the
   * predicates, ascending.
   */
  override async scan(spec: ScanSpec, exact = false): Promise<readonly number[]> {
    if (spec.kind === null || spec.predicates.length === 0) return super.scan(spec, exact);
    const view = await this.view();
    const candidates = view.nodesWithKind(spec.kind);
    if (candidates.length > view.nodeCount / 2 || (!exact && candidates.length <= SMALL_SCAN)) return super.scan(spec, exact);
    const where = sql.join(spec.predicates.map((p) => this.pushdown(p)), sql` and `);
    const out: number[] = [];
    for (let i = 0; i < candidates.length; i += ID_BATCH) {
      const rows = await sql<{ id: number }>`select id from nodes where id in (${sql.join(candidates.slice(i, i + ID_BATCH))})
        and ${where} order by id`.execute(this.db.kysely);
      for (const r of rows.rows) out.push(Number(r.id));
    }
    return out;
  }
}

const ID_BATCH = 1_000;
const GC_EVERY = 500_000;
