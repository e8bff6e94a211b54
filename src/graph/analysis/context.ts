/**
 * What every post-processing rule reads and writes through: indexed reads of the graph store (nodes
 * by kind, edges into / out of given nodes by kind), BloodHound's group expansion (transitive
 * MemberOf / MemberOfLocalGroup members, edges touching an Administrators `-544` group left out), its
 * "cross product" of principal sets, and the buffer of derived edges. All reads go through the
 * analysis transaction; nothing holds more than the nodes and edges a rule asks for (bounded memory).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';
import { parseKinds } from '../merge.ts';

type K = Kysely<Database> | Transaction<Database>;
const CHUNK = 500;

export interface AnalysisNode {
  id: number;
  objectid: string;
  kinds: string[];
  environmentId: string | null;
  properties: Record<string, unknown>;
}

export interface AnalysisEdge {
  start: number;
  end: number;
  kind: string;
}

export interface DerivedEdge extends AnalysisEdge {
  properties?: Record<string, unknown>;
}

const toNode = (r: { id: number | string; objectid: string; kinds: string; environment_id: string | null; properties: string }): AnalysisNode => ({
  id: Number(r.id), objectid: r.objectid, kinds: parseKinds(r.kinds), environmentId: r.environment_id,
  properties: JSON.parse(r.properties) as Record<string, unknown>,
});

export const hasKind = (n: AnalysisNode, ...kinds: string[]) => kinds.some((k) => n.kinds.includes(k));
export const bool = (n: AnalysisNode, key: string): boolean | undefined => (typeof n.properties[key] === 'boolean' ? (n.properties[key] as boolean) : undefined);
export const num = (n: AnalysisNode, key: string): number | undefined => (typeof n.properties[key] === 'number' ? (n.properties[key] as number) : undefined);
export const str = (n: AnalysisNode, key: string): string | undefined => (typeof n.properties[key] === 'string' ? (n.properties[key] as string) : undefined);
export const strings = (n: AnalysisNode, key: string): string[] | undefined =>
  (Array.isArray(n.properties[key]) ? (n.properties[key] as unknown[]).map(String) : undefined);

/** Group membership edges, and the suffix whose edges BloodHound's expansion leaves out. */
const MEMBERSHIP = ['MemberOf', 'MemberOfLocalGroup'];
const ADMINISTRATORS = '-544';

export class AnalysisContext {
  private readonly expansions = new Map<number, Set<number>>();
  private readonly nodeCache = new Map<number, AnalysisNode>();
  private readonly byKind = new Map<string, AnalysisNode[]>();
  private readonly buffer: DerivedEdge[] = [];
  readonly counts = new Map<string, number>();

  constructor(readonly k: K, readonly now: Micros, readonly dialect: 'sqlite' | 'postgres') {}

  /** Nodes whose primary kind is one of `kinds` (index nodes_kind; read once per analysis). */
  async nodesOfKind(...kinds: string[]): Promise<AnalysisNode[]> {
    const key = kinds.join(',');
    const known = this.byKind.get(key);
    if (known) return known;
    const rows = await this.k.selectFrom('nodes').select(['id', 'objectid', 'kinds', 'environment_id', 'properties'])
      .where('kind', 'in', kinds).orderBy('id').execute();
    const nodes = rows.map(toNode);
    for (const n of nodes) this.nodeCache.set(n.id, n);
    this.byKind.set(key, nodes);
    return nodes;
  }

  /** Nodes by id (read once, then cached). */
  async nodes(ids: Iterable<number>): Promise<Map<number, AnalysisNode>> {
    const out = new Map<number, AnalysisNode>();
    const missing: number[] = [];
    for (const id of ids) {
      const n = this.nodeCache.get(id);
      if (n) out.set(id, n);
      else missing.push(id);
    }
    for (let i = 0; i < missing.length; i += CHUNK) {
      const rows = await this.k.selectFrom('nodes').select(['id', 'objectid', 'kinds', 'environment_id', 'properties'])
        .where('id', 'in', missing.slice(i, i + CHUNK)).execute();
      for (const r of rows) {
        const n = toNode(r);
        this.nodeCache.set(n.id, n);
        out.set(n.id, n);
      }
    }
    return out;
  }

  /** Edges of `kinds` ending at one of `ends` (index edges_end_kind_start). */
  async edgesInto(ends: Iterable<number>, kinds: string[]): Promise<AnalysisEdge[]> {
    return this.edgesBy('end_id', [...ends], kinds);
  }

  /** Edges of `kinds` starting at one of `starts` (unique index start, kind, end). */
  async edgesFrom(starts: Iterable<number>, kinds: string[]): Promise<AnalysisEdge[]> {
    return this.edgesBy('start_id', [...starts], kinds);
  }

  private async edgesBy(column: 'start_id' | 'end_id', ids: number[], kinds: string[]): Promise<AnalysisEdge[]> {
    const out: AnalysisEdge[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await this.k.selectFrom('edges').select(['start_id', 'end_id', 'kind'])
        .where(column, 'in', ids.slice(i, i + CHUNK)).where('kind', 'in', kinds).orderBy('id').execute();
      for (const r of rows) out.push({ start: Number(r.start_id), end: Number(r.end_id), kind: r.kind });
    }
    return out;
  }

  /** Start nodes of `kinds` edges into `end` that carry the Base kind (BloodHound's first-degree principals). */
  async firstDegree(end: number, kinds: string[]): Promise<AnalysisNode[]> {
    const edges = await this.edgesInto([end], kinds);
    const nodes = await this.nodes(new Set(edges.map((e) => e.start)));
    return [...nodes.values()].filter((n) => hasKind(n, 'Base')).sort((a, b) => a.id - b.id);
  }

  /**
   * Every transitive member of a group (MemberOf / MemberOfLocalGroup inbound), as BloodHound's
   * analysis expands them: an edge from or to an object whose id ends with -544 is not followed.
   * Empty for anything that is not a group.
   */
  async members(groupId: number): Promise<Set<number>> {
    const known = this.expansions.get(groupId);
    if (known) return known;
    const members = new Set<number>();
    const root = (await this.nodes([groupId])).get(groupId);
    if (root && hasKind(root, 'Group', 'ADLocalGroup') && !root.objectid.endsWith(ADMINISTRATORS)) {
      let frontier = [groupId];
      while (frontier.length) {
        const next: number[] = [];
        for (let i = 0; i < frontier.length; i += CHUNK) {
          const rows = await this.k.selectFrom('edges as e').innerJoin('nodes as s', 's.id', 'e.start_id')
            .select(['e.start_id', 's.objectid']).where('e.end_id', 'in', frontier.slice(i, i + CHUNK))
            .where('e.kind', 'in', MEMBERSHIP).execute();
          for (const r of rows) {
            const id = Number(r.start_id);
            if (r.objectid.endsWith(ADMINISTRATORS) || id === groupId || members.has(id)) continue;
            members.add(id);
            next.push(id);
          }
        }
        frontier = next;
      }
    }
    this.expansions.set(groupId, members);
    return members;
  }

  /** The Authenticated Users and Everyone groups of every domain (BloodHound's "special groups"). */
  async specialGroups(): Promise<Set<number>> {
    const rows = await this.k.selectFrom('nodes').select(['id', 'kinds'])
      .where((eb) => eb.or([eb('objectid', 'like', '%-S-1-5-11'), eb('objectid', 'like', '%-S-1-1-0')])).execute();
    return new Set(rows.filter((r) => parseKinds(r.kinds).includes('Group')).map((r) => Number(r.id)));
  }

  /**
   * BloodHound's cross product (`CalculateCrossProductNodeSets`): the principals that hold every one
   * of the given first-degree sets, directly or through group membership, written at the most compact
   * level (a group rather than all its members when the whole group qualifies). A set that reaches
   * Authenticated Users or Everyone is satisfied by everyone and drops out.
   */
  async crossProduct(sets: AnalysisNode[][]): Promise<Set<number>> {
    if (sets.length < 2) return new Set();
    const special = await this.specialGroups();
    const firstDegree: Set<number>[] = [];
    const unrolled: Set<number>[] = [];
    for (const set of sets) {
      const first = new Set<number>();
      const all = new Set<number>();
      for (const n of set) {
        first.add(n.id);
        all.add(n.id);
        if (hasKind(n, 'Group', 'ADLocalGroup')) for (const m of await this.members(n.id)) all.add(m);
      }
      if ([...special].some((g) => all.has(g))) continue;
      firstDegree.push(first);
      unrolled.push(all);
    }
    if (firstDegree.length === 0) return new Set(sets.flatMap((s) => s.map((n) => n.id)));
    if (firstDegree.length === 1) return firstDegree[0];
    const check = new Set(unrolled[1]);
    for (const other of unrolled.slice(2)) for (const id of [...check]) if (!other.has(id)) check.delete(id);
    const result = new Set<number>();
    const reference = new Set<number>();
    for (const id of [...firstDegree[0]].sort((a, b) => a - b)) {
      if (check.has(id)) result.add(id);
      else for (const m of await this.members(id)) reference.add(m);
    }
    const sizes = new Map<number, number>();
    for (const id of reference) {
      const size = (await this.members(id)).size;
      if (size > 0) sizes.set(id, size);
    }
    const groups = [...sizes.keys()].sort((a, b) => sizes.get(a)! - sizes.get(b)! || a - b);
    for (const group of groups) {
      if (!reference.has(group)) continue;
      reference.delete(group);
      if (!check.has(group)) continue;
      result.add(group);
      for (const m of await this.members(group)) {
        if (reference.has(m)) reference.delete(m);
        else reference.add(m);
      }
    }
    for (const id of reference) if (check.has(id)) result.add(id);
    return result;
  }

  emit(start: number, end: number, kind: string, properties?: Record<string, unknown>): void {
    this.buffer.push({ start, end, kind, properties });
  }

  /** Writes the buffered edges (one row per start, kind, end) and counts them per kind. */
  async flush(): Promise<void> {
    const rows = new Map<string, DerivedEdge>();
    for (const e of this.buffer.splice(0)) rows.set(`${e.start}:${e.kind}:${e.end}`, e);
    const list = [...rows.values()];
    for (let i = 0; i < list.length; i += 300) {
      await this.k.insertInto('edges').values(list.slice(i, i + 300).map((e) => ({
        start_id: e.start, end_id: e.end, kind: e.kind, properties: JSON.stringify(e.properties ?? {}), last_seen: this.now,
      }))).onConflict((oc) => oc.columns(['start_id', 'kind', 'end_id']).doUpdateSet((eb) => ({
        properties: eb.ref('excluded.properties'), last_seen: eb.ref('excluded.last_seen'),
      }))).execute();
    }
    for (const e of list) this.count(e.kind, 1);
  }

  count(kind: string, n: number): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + n);
  }

  /** Runs an `insert into edges … select` and counts what it wrote. */
  async insertSelect(kind: string, query: ReturnType<typeof sql>): Promise<void> {
    const result = await query.execute(this.k);
    this.count(kind, Number(result.numAffectedRows ?? 0));
  }
}
