/**
 * Hand-built graphs for the post-processing rule tests (rules.test.ts, adcs-esc*.test.ts): nodes and edges
 * written through the store, the whole analysis run, the derived edges read back as "start -> end" pairs.
 */
import assert from 'node:assert/strict';
import { createTestDb, type TestDb } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../store.repository.ts';
import { postProcess } from './post-processing.ts';

export const D = 'S-1-5-21-1';
export type N = [objectid: string, kinds: string[], properties?: Record<string, unknown>];
export type E = [start: string, kind: string, end: string, properties?: Record<string, unknown>];

export const domain = (extra: Record<string, unknown> = {}): N => [D, ['Domain', 'Base'], { name: 'CORP.LOCAL', domainsid: D, collected: true, ...extra }];
export const user = (rid: string, extra: Record<string, unknown> = {}): N => [`${D}-${rid}`, ['User', 'Base'], { name: `U${rid}@CORP.LOCAL`, domainsid: D, ...extra }];
export const group = (rid: string): N => [`${D}-${rid}`, ['Group', 'Base'], { name: `G${rid}@CORP.LOCAL`, domainsid: D }];
export const computer = (rid: string, extra: Record<string, unknown> = {}): N => [`${D}-${rid}`, ['Computer', 'Base'], { name: `C${rid}.CORP.LOCAL`, domainsid: D, ...extra }];

export async function analysed(nodes: N[], edges: E[], run: (db: TestDb) => Promise<unknown> = (db) => postProcess(db)): Promise<{ db: TestDb; edges: (kind: string) => Promise<string[]> }> {
  const db = await createTestDb();
  await upsertNodes(db.kysely, nodes.map(([objectid, kinds, properties]) => ({
    objectid, kinds, name: (properties?.name as string | undefined) ?? null, environmentId: (properties?.domainsid as string | undefined) ?? null,
    properties: properties ?? {}, sourceKind: 'Base',
  })));
  await upsertEdges(db.kysely, edges.map(([start, kind, end, properties]) => ({ start: { objectid: start }, end: { objectid: end }, kind, properties })));
  await run(db);
  return {
    db,
    edges: async (kind) => {
      const rows = await db.kysely.selectFrom('edges as e').innerJoin('nodes as s', 's.id', 'e.start_id').innerJoin('nodes as t', 't.id', 'e.end_id')
        .select(['s.objectid as s', 't.objectid as t']).where('e.kind', '=', kind).execute();
      return rows.map((r) => `${r.s} -> ${r.t}`).sort();
    },
  };
}

export async function check(nodes: N[], edges: E[], kind: string, expected: string[]) {
  const g = await analysed(nodes, edges);
  try {
    assert.deepEqual(await g.edges(kind), [...expected].sort());
  } finally {
    await g.db.close();
  }
}

/** "rid" → the object id in D (a full SID or GUID stays as it is); "a -> b" pairs, sorted. */
export const oid = (x: string) => (x.startsWith('S-') || x.length > 8 ? x : `${D}-${x}`);
export const pairs = (...list: Array<[string, string]>) => list.map(([a, b]) => `${oid(a)} -> ${oid(b)}`).sort();
