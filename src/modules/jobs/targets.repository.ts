/**
 * Resolves job / event targets (objectids) against the graph store (src/graph, table `nodes`).
 * Unknown objectids come back with exists: false and empty strings. Lookups match the objectid as
 * given or upper-cased (the graph stores AD SIDs / GUIDs upper-cased).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';

export interface OuRef { objectid: string; name: string; exists: boolean; distinguishedname: string; type: string }
export interface DomainRef { objectid: string; name: string; exists: boolean; type: string }

interface NodeInfo { name: string; kind: string; distinguishedname: string; lastSeen: number; id: number }
export type Resolved = ReadonlyMap<string, NodeInfo>;

const CHUNK = 500;

export async function resolveObjectIds(db: Kysely<Database>, objectids: Iterable<string>): Promise<Resolved> {
  const wanted = new Set<string>();
  for (const id of objectids) {
    wanted.add(id);
    wanted.add(id.toUpperCase());
  }
  const out = new Map<string, NodeInfo>();
  const all = [...wanted];
  for (let i = 0; i < all.length; i += CHUNK) {
    const rows = await db
      .selectFrom('nodes')
      .select(['id', 'objectid', 'kind', 'name', 'properties', 'last_seen'])
      .where('objectid', 'in', all.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) {
      const props = parseProps(r.properties);
      out.set(r.objectid, {
        id: r.id,
        kind: r.kind,
        name: r.name ?? (typeof props.name === 'string' ? props.name : ''),
        distinguishedname: typeof props.distinguishedname === 'string' ? props.distinguishedname : '',
        lastSeen: r.last_seen,
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

/** A stamp that changes when any of the resolved nodes is written (ingest sets last_seen) or appears/disappears. */
export function graphStamp(resolved: Resolved): string {
  let max = 0;
  let ids = 0;
  for (const n of resolved.values()) {
    if (n.lastSeen > max) max = n.lastSeen;
    ids += n.id;
  }
  return `${resolved.size}.${ids}.${max}`;
}

function parseProps(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}
