/**
 * Resolves job / event targets (objectids) against the graph store (src/graph, table `nodes`).
 * Unknown objectids come back with exists: false and empty strings. Lookups match the objectid as
 * given or upper-cased (the graph stores AD SIDs / GUIDs upper-cased).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';

export interface OuRef { objectid: string; name: string; exists: boolean; distinguishedname: string; type: string }
export interface DomainRef { objectid: string; name: string; exists: boolean; type: string }

interface NodeInfo { name: string; kind: string; distinguishedname: string }
export type Resolved = ReadonlyMap<string, NodeInfo>;

const CHUNK = 500;

export async function resolveObjectIds(db: Kysely<Database>, objectids: Iterable<string>): Promise<Resolved> {
  const out = new Map<string, NodeInfo>();
  const all = variants(objectids);
  for (let i = 0; i < all.length; i += CHUNK) {
    const rows = await db
      .selectFrom('nodes')
      .select(['objectid', 'kind', 'name', 'properties'])
      .where('objectid', 'in', all.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) {
      const props = parseProps(r.properties);
      out.set(r.objectid, {
        kind: r.kind,
        name: r.name ?? (typeof props.name === 'string' ? props.name : ''),
        distinguishedname: typeof props.distinguishedname === 'string' ? props.distinguishedname : '',
      });
    }
  }
  return out;
}

function lookup(resolved: Resolved, objectid: string): NodeInfo | undefined {
  return resolved.get(objectid) ?? resolved.get(objectid.toUpperCase());
}

export function ouRef(resolved: Resolved, objectid: string): OuRef {
  const n = lookup(resolved, objectid);
  return { objectid, name: n?.name ?? '', exists: n !== undefined, distinguishedname: n?.distinguishedname ?? '', type: 'OU' };
}

export function domainRef(resolved: Resolved, objectid: string): DomainRef {
  const n = lookup(resolved, objectid);
  return { objectid, name: n?.name ?? '', exists: n !== undefined, type: 'Domain' };
}

function variants(objectids: Iterable<string>): string[] {
  const wanted = new Set<string>();
  for (const id of objectids) {
    wanted.add(id);
    wanted.add(id.toUpperCase());
  }
  return [...wanted];
}

/**
 * A stamp of the graph nodes these objectids name: changes when one of them is written (every
 * ingest write sets last_seen), appears or disappears. One aggregate row, no properties parsed.
 */
export async function graphStamp(db: Kysely<Database>, objectids: Iterable<string>): Promise<string> {
  const all = variants(objectids);
  let count = 0;
  let ids = 0;
  let max = 0;
  for (let i = 0; i < all.length; i += CHUNK) {
    const row = await db
      .selectFrom('nodes')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('id').as('ids'), eb.fn.max('last_seen').as('seen')])
      .where('objectid', 'in', all.slice(i, i + CHUNK))
      .executeTakeFirstOrThrow();
    count += Number(row.n);
    ids += Number(row.ids ?? 0);
    max = Math.max(max, Number(row.seen ?? 0));
  }
  return `${count}.${ids}.${max}`;
}

function parseProps(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}
