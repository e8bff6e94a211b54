/**
 * Resolves job / event targets (objectids) against the graph store (src/graph, table `nodes`).
 * Unknown objectids come back with exists: false and empty strings. Lookups match the objectid as
 * given or upper-cased (the graph stores AD SIDs / GUIDs upper-cased).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { DataVersions } from '../../db/data-versions.ts';

export interface OuRef { objectid: string; name: string; exists: boolean; distinguishedname: string; type: string }
export interface DomainRef { objectid: string; name: string; exists: boolean; type: string }

interface NodeInfo { name: string; kind: string; distinguishedname: string }
export type Resolved = ReadonlyMap<string, NodeInfo>;

const CHUNK = 500;

/**
 * What objectids resolved to (a node's info, or null: no such node), per database, while `nodes` is unchanged
 * (src/db/data-versions.ts): events and jobs name the same few OUs and domains again and again. Dropped whole when
 * `nodes` changes or it reaches RESOLVED_KEPT entries; not used while the versions are not usable.
 */
const resolvedKept = new WeakMap<DataVersions, { snapshot: string; known: Map<string, NodeInfo | null> }>();
const RESOLVED_KEPT = 100_000;
const NODES = ['nodes'] as const;

/**
 * What resolveObjectIds(db, objectids, versions) answers, when every objectid is already known from earlier requests
 * (no statement, no promise); undefined when one is not, or nothing can be reused now.
 */
export function knownObjectIds(objectids: Iterable<string>, versions: DataVersions): Resolved | undefined {
  if (!versions.usable()) return undefined;
  const kept = resolvedKept.get(versions);
  if (!kept || kept.snapshot !== versions.snapshot(NODES)) return undefined;
  const out = new Map<string, NodeInfo>();
  for (const id of variants(objectids)) {
    const known = kept.known.get(id);
    if (known === undefined) return undefined;
    if (known) out.set(id, known);
  }
  return out;
}

/** `versions`: the database's data versions, to reuse what earlier requests resolved (omit inside a transaction). */
export async function resolveObjectIds(db: Kysely<Database>, objectids: Iterable<string>, versions?: DataVersions): Promise<Resolved> {
  const out = new Map<string, NodeInfo>();
  let all = variants(objectids);
  const snapshot = versions?.usable() ? versions.snapshot(NODES) : undefined;
  let kept: { snapshot: string; known: Map<string, NodeInfo | null> } | undefined;
  if (versions && snapshot !== undefined) {
    kept = resolvedKept.get(versions);
    if (!kept || kept.snapshot !== snapshot) resolvedKept.set(versions, (kept = { snapshot, known: new Map() }));
    const missing: string[] = [];
    for (const id of all) {
      const known = kept.known.get(id);
      if (known === undefined) missing.push(id);
      else if (known) out.set(id, known);
    }
    if (missing.length === 0) return out;
    all = missing;
  }
  const found = new Map<string, NodeInfo>();
  for (let i = 0; i < all.length; i += CHUNK) {
    const rows = await db
      .selectFrom('nodes')
      .select(['objectid', 'kind', 'name', 'properties'])
      .where('objectid', 'in', all.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) {
      const props = parseProps(r.properties);
      found.set(r.objectid, {
        kind: r.kind,
        name: r.name ?? (typeof props.name === 'string' ? props.name : ''),
        distinguishedname: typeof props.distinguishedname === 'string' ? props.distinguishedname : '',
      });
    }
  }
  for (const [id, info] of found) out.set(id, info);
  // Kept only when nothing was written to nodes since before the read (the snapshot is taken first).
  if (kept && versions!.usable() && versions!.snapshot(NODES) === snapshot) {
    if (kept.known.size + all.length > RESOLVED_KEPT) kept.known.clear();
    for (const id of all) kept.known.set(id, found.get(id) ?? null);
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

/** The objectids as given and upper-cased, without duplicates. */
export function variants(objectids: Iterable<string>): string[] {
  const wanted = new Set<string>();
  for (const id of objectids) {
    wanted.add(id);
    wanted.add(id.toUpperCase());
  }
  return [...wanted];
}

/**
 * A stamp of the graph nodes these objectids name: changes when one of them is written (every
 * ingest write sets last_seen), appears or disappears. One aggregate text, no properties parsed.
 * Up to STAMP_INLINE objectids it is a scalar subquery that can ride along with another statement.
 */
export const STAMP_INLINE = CHUNK;

/** `all`: already expanded by variants(), 1..STAMP_INLINE of them. */
export function graphStampExpr(all: string[]): RawBuilder<string> {
  if (all.length === 0 || all.length > STAMP_INLINE) throw new Error('graphStampExpr takes 1..STAMP_INLINE objectids');
  return sql<string>`(select cast(count(*) as text) || '.' || cast(coalesce(sum(id), 0) as text) || '.' || cast(coalesce(max(last_seen), 0) as text) from nodes where objectid in (${sql.join(all)}))`;
}

export async function graphStamp(db: Kysely<Database>, objectids: string[]): Promise<string> {
  const all = variants(objectids);
  if (all.length === 0) return '-';
  const parts: string[] = [];
  for (let i = 0; i < all.length; i += STAMP_INLINE) {
    const row = await db.selectNoFrom(graphStampExpr(all.slice(i, i + STAMP_INLINE)).as('stamp')).executeTakeFirstOrThrow();
    parts.push(row.stamp);
  }
  return parts.join('|');
}

function parseProps(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}
