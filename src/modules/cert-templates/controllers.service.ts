/**
 * Controller lists, cached per template and keyed by the graph fingerprint (analysis generation +
 * newest node / edge ids), so a template with 10,000 controllers costs one tiny query per page once
 * its set is known. Sorting happens here, by code-unit order, identical on both databases.
 */
import type { Db } from '../../db/create-db.ts';
import type { SortTerm } from '../../http/query/index.ts';
import { findControllers, graphFingerprint, type ControllerRow } from './controllers.repository.ts';

/** Most rows kept over all cached templates; a larger set is computed per request. */
const MAX_CACHED_ROWS = 500_000;
const MAX_ENTRIES = 256;

interface Entry {
  fingerprint: string;
  rows: ControllerRow[];
  sorted: Map<string, ControllerRow[]>;
}

interface Cache {
  entries: Map<number, Entry>;
  rows: number;
}

/** One cache per database handle (tests open many in-memory databases in one process). */
const caches = new WeakMap<Db, Cache>();

const FIELD: Record<string, (r: ControllerRow) => string> = {
  name: (r) => r.name,
  objectid: (r) => r.objectid,
  label: (r) => r.kind,
};

function sortRows(rows: ControllerRow[], sort: readonly SortTerm[]): ControllerRow[] {
  const keys = sort.map((t) => ({ get: FIELD[t.name], sign: t.descending ? -1 : 1 }));
  return [...rows].sort((a, b) => {
    for (const { get, sign } of keys) {
      const x = get(a);
      const y = get(b);
      if (x !== y) return x < y ? -sign : sign;
    }
    return a.id - b.id;
  });
}

function remember(cache: Cache, key: number, entry: Entry): void {
  const old = cache.entries.get(key);
  if (old) {
    cache.entries.delete(key);
    cache.rows -= old.rows.length;
  }
  if (entry.rows.length > MAX_CACHED_ROWS) return;
  while (cache.entries.size >= MAX_ENTRIES || cache.rows + entry.rows.length > MAX_CACHED_ROWS) {
    const [oldestKey, oldest] = cache.entries.entries().next().value as [number, Entry];
    cache.entries.delete(oldestKey);
    cache.rows -= oldest.rows.length;
  }
  cache.entries.set(key, entry);
  cache.rows += entry.rows.length;
}

/**
 * The graph's state from the data versions of nodes and edges (no statement), while they are usable; they change
 * with every write to either table, from this instance or another (src/db/data-versions.ts).
 */
function graphVersion(db: Db): string | undefined {
  return db.versions.usable() ? `v${db.versions.snapshot(GRAPH_TABLES)}` : undefined;
}
const GRAPH_TABLES = ['nodes', 'edges'] as const;

/**
 * The template's controllers in the requested order when they are kept and the graph's state is known from the data
 * versions (no statement, no promise: most pages are answered so); undefined otherwise (sortedControllers reads).
 */
export function keptSortedControllers(db: Db, templateId: number, sort: readonly SortTerm[]): ControllerRow[] | undefined {
  const fingerprint = graphVersion(db);
  if (fingerprint === undefined) return undefined;
  const entry = caches.get(db)?.entries.get(templateId);
  if (!entry || entry.fingerprint !== fingerprint) return undefined;
  return sortedOf(entry, sort);
}

function sortedOf(entry: Entry, sort: readonly SortTerm[]): ControllerRow[] {
  const sortKey = sort.map((t) => `${t.descending ? '-' : ''}${t.name}`).join(',');
  let sorted = entry.sorted.get(sortKey);
  if (!sorted) {
    sorted = sortRows(entry.rows, sort);
    entry.sorted.set(sortKey, sorted);
  }
  return sorted;
}

/** The template's controllers in the requested order. */
export async function sortedControllers(db: Db, templateId: number, sort: readonly SortTerm[]): Promise<ControllerRow[]> {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = { entries: new Map(), rows: 0 }));
  const fingerprint = graphVersion(db) ?? await graphFingerprint(db.kysely);
  let entry = cache.entries.get(templateId);
  if (!entry || entry.fingerprint !== fingerprint) {
    entry = { fingerprint, rows: await findControllers(db.kysely, templateId), sorted: new Map() };
    remember(cache, templateId, entry);
  }
  return sortedOf(entry, sort);
}
