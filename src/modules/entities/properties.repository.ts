/** The few properties entity traversals test, read from the database for just the ids involved. */
import { sql } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import { idIn } from '../../graph/engine/details.ts';

const CHUNK = 500;

/** A JSON property of the text `properties` column that is boolean true, on either database. */
function isTrue(db: Db, name: string) {
  return db.dialect === 'postgres'
    ? sql<boolean>`(properties::jsonb -> ${name}) = 'true'::jsonb`
    : sql<boolean>`json_extract(properties, ${`$.${name}`}) = 1`;
}

/** Of these nodes / edges, those whose JSON property is true. */
export async function trueProperty(db: Db, table: 'nodes' | 'edges', ids: readonly number[], property: string): Promise<Set<number>> {
  const out = new Set<number>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const part = ids.slice(i, i + CHUNK);
    const rows = await db.kysely.selectFrom(table).select('id').where(idIn(db, 'id', part)).where(isTrue(db, property)).execute();
    for (const r of rows) out.add(Number(r.id));
  }
  return out;
}

/** Of these GPLink edges, the enforced ones. */
export function enforcedLinks(db: Db, edgeIds: readonly number[]): Promise<Set<number>> {
  return trueProperty(db, 'edges', edgeIds, 'enforced');
}

/** Of these nodes, those that block GPO inheritance. */
export function blockingNodes(db: Db, nodeIds: readonly number[]): Promise<Set<number>> {
  return trueProperty(db, 'nodes', nodeIds, 'blocksinheritance');
}

/** What GPO traversals test, for the whole graph: enforced GPLink edges and inheritance-blocking OUs / domains. */
export interface GpoFacts {
  enforced: Set<number>;
  blocking: Set<number>;
}

const gpoCache = new WeakMap<Db, { key: string; facts: Promise<GpoFacts> }>();

/**
 * GPO facts, read once per state of the graph tables (data versions: a property change retires
 * them too) — a handful of rows, found through the engine (GPLink edges, OU / Domain nodes).
 */
export function gpoFacts(db: Db, view: import('../../graph/engine/index.ts').GraphView): Promise<GpoFacts> {
  const key = db.versions.usable() ? db.versions.snapshot(['nodes', 'edges']) : null;
  const hit = gpoCache.get(db);
  if (key !== null && hit?.key === key) return hit.facts;
  const facts = (async () => {
    const links = view.nodesWithKind('GPO').flatMap((g) => view.edgesOf(g, 'outbound', ['GPLink']).map((e) => e.id));
    const containers = [...view.nodesWithKind('OU'), ...view.nodesWithKind('Domain')];
    return { enforced: await enforcedLinks(db, links), blocking: await blockingNodes(db, containers) };
  })();
  if (key !== null) gpoCache.set(db, { key, facts });
  facts.catch(() => gpoCache.delete(db));
  return facts;
}
