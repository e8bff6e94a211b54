/**
 * What the generated entity routes share: finding the entity, running a related list, paging it in
 * the requested order, building the answer graph. Sorted result rows are kept per snapshot (a list
 * of 700,000 members is read and sorted once per graph state, then paged from memory).
 */
import { findNodeByObjectId } from '../../graph/store.repository.ts';
import type { Db } from '../../db/create-db.ts';
import { checkGraphLimit } from '../../graph/answers/limits.ts';
import { flatGraph } from '../../graph/answers/flat-graph.ts';
import { idIn } from '../../graph/engine/details.ts';
import type { GraphSnapshot } from '../../graph/engine/snapshot.ts';
import type { GraphView, NodeRow } from '../../graph/engine/index.ts';
import { ApiError, Messages, notFound } from '../../http/errors.ts';
import type { SortTerm } from '../../http/query/index.ts';
import type { Related } from './traversals.ts';

/** An object id as the routes accept it: 1–1000 characters, no control characters. */
export function checkObjectId(objectId: string): void {
  // eslint-disable-next-line no-control-regex
  if (objectId.length === 0 || objectId.length > 1000 || /[\u0000-\u001f\u007f]/.test(objectId)) throw new ApiError(400, Messages.idMalformed);
}

/** The entity's `nodes` row: by objectid as given, then upper-cased (AD ids are stored so); it must carry `kind`. */
export async function findEntityRow(db: Db, view: GraphView, objectId: string, kind: string): Promise<NodeRow> {
  checkObjectId(objectId);
  for (const candidate of objectId === objectId.toUpperCase() ? [objectId] : [objectId, objectId.toUpperCase()]) {
    const row = await findNodeByObjectId(db.kysely, candidate);
    if (row && view.hasKind(Number(row.id), kind)) return row;
  }
  throw notFound();
}

/** The node id of the entity (see findEntityRow). */
export async function findEntity(db: Db, view: GraphView, objectId: string, kind: string): Promise<number> {
  return Number((await findEntityRow(db, view, objectId, kind)).id);
}

export interface ListRow {
  id: number;
  objectid: string;
  name: string;
  kind: string;
}

const FIELD: Record<string, (r: ListRow) => string> = { name: (r) => r.name, objectid: (r) => r.objectid, label: (r) => r.kind };

async function rowsOf(db: Db, ids: readonly number[]): Promise<ListRow[]> {
  const out: ListRow[] = [];
  for (let i = 0; i < ids.length; i += 5000) {
    const rows = await db.kysely.selectFrom('nodes').select(['id', 'objectid', 'name', 'kind']).where(idIn(db, 'id', ids.slice(i, i + 5000))).execute();
    for (const r of rows) out.push({ id: Number(r.id), objectid: r.objectid, name: r.name ?? r.objectid, kind: r.kind });
  }
  return out;
}

/** Sorted rows kept per database handle, list and order, for the snapshot they were made from; bounded by rows. */
const MAX_KEPT_ROWS = 500_000;
const SMALL = 200;
const kept = new WeakMap<Db, { rows: number; lists: Map<string, { graph: GraphSnapshot; rows: ListRow[] }> }>();

function remember(db: Db, key: string, graph: GraphSnapshot, rows: ListRow[]): void {
  if (rows.length <= SMALL || rows.length > MAX_KEPT_ROWS) return;
  let k = kept.get(db);
  if (!k) kept.set(db, (k = { rows: 0, lists: new Map() }));
  const old = k.lists.get(key);
  if (old) {
    k.lists.delete(key);
    k.rows -= old.rows.length;
  }
  while (k.rows + rows.length > MAX_KEPT_ROWS) {
    const [oldestKey, oldest] = k.lists.entries().next().value!;
    k.lists.delete(oldestKey);
    k.rows -= oldest.rows.length;
  }
  k.lists.set(key, { graph, rows });
  k.rows += rows.length;
}

/**
 * The `k` largest of `ids` (every one when k is undefined), largest first. A page near the top of a
 * long list keeps a heap of k instead of sorting the list (a group of 100,000 members: ~1 ms, not ~30).
 */
export function largestFirst(ids: readonly number[], k = ids.length): number[] {
  if (k <= 0 || ids.length === 0) return [];
  if (k * 8 >= ids.length) return [...ids].sort((a, b) => b - a).slice(0, k);
  const heap = new Float64Array(k); // a min-heap of the largest seen so far
  let size = 0;
  for (const id of ids) {
    let i: number;
    if (size < k) {
      i = size++;
      while (i > 0 && heap[(i - 1) >> 1] > id) {
        heap[i] = heap[(i - 1) >> 1];
        i = (i - 1) >> 1;
      }
    } else if (id > heap[0]) {
      i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const c = l + 1 < size && heap[l + 1] < heap[l] ? l + 1 : l;
        if (heap[c] >= id) break;
        heap[i] = heap[c];
        i = c;
      }
    } else continue;
    heap[i] = id;
  }
  return Array.from(heap.subarray(0, size).sort().reverse());
}

/** One page of a related list in the requested order (default: node id descending, as BloodHound). */
export async function page(db: Db, view: GraphView, key: string, ids: readonly number[], sort: readonly SortTerm[], skip: number, limit: number): Promise<ListRow[]> {
  const end = limit === 0 ? undefined : skip + limit;
  if (sort.length === 0) {
    const ordered = largestFirst(ids, end).slice(skip);
    const byId = new Map((await rowsOf(db, ordered)).map((r) => [r.id, r]));
    return ordered.map((id) => byId.get(id)).filter((r): r is ListRow => r !== undefined);
  }
  const sortKey = `${key}?${sort.map((t) => `${t.descending ? '-' : ''}${t.name}`).join(',')}`;
  const hit = kept.get(db)?.lists.get(sortKey);
  let rows = hit && hit.graph === view.graph ? hit.rows : undefined;
  if (!rows) {
    const keys = sort.map((t) => ({ get: FIELD[t.name], sign: t.descending ? -1 : 1 }));
    rows = (await rowsOf(db, ids)).sort((a, b) => {
      for (const { get, sign } of keys) {
        const x = get(a);
        const y = get(b);
        if (x !== y) return x < y ? -sign : sign;
      }
      return a.id - b.id;
    });
    remember(db, sortKey, view.graph, rows);
  }
  return rows.slice(skip, end);
}

/** The flat graph map of a related list: the entity, the result nodes, and the edges between. */
export async function relatedGraph(view: GraphView, entity: number, related: Related, limit: number): Promise<Record<string, unknown>> {
  const edges = await related.edges!();
  const ids = new Set<number>([...edges.flatMap((e) => [e.start, e.end])]);
  if (edges.length === 0) return {};
  ids.add(entity);
  checkGraphLimit(ids.size + edges.length, limit);
  const [nodes, edgeRecords] = await Promise.all([view.nodes([...ids], { properties: true }), view.edgeDetails([...new Set(edges.map((e) => e.id))])]);
  return flatGraph(nodes, edgeRecords);
}
