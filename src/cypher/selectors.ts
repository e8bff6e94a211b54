import type { Kysely, Transaction } from 'kysely';
import type { Db } from '../db/create-db.ts';
import type { Database } from '../db/database.ts';
import { CypherError } from './errors.ts';
import { executeQuery } from './execute.ts';
import { GraphSource } from './graph-source.ts';
import { prepareCypher } from './prepare.ts';
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

/** The node ids each enabled selector of a tag selects through its Cypher seeds. */
export async function cypherSeedNodes(db: Db, tagId: number): Promise<Map<number, Set<number>>> {
  const seeds = await db.kysely.selectFrom('asset_group_tag_selector_seeds as d')
    .innerJoin('asset_group_tag_selectors as s', 's.id', 'd.selector_id')
    .select(['s.id as selectorId', 'd.value']).where('s.asset_group_tag_id', '=', tagId).where('s.disabled_at', 'is', null)
    .where('d.type', '=', CYPHER_SEED).orderBy('s.id').execute();
  const out = new Map<number, Set<number>>();
  const source = new GraphSource(db);
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
