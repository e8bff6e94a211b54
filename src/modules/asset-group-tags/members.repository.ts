/**
 * Reads of the materialised membership (asset_group_tag_members m, joined to nodes for properties).
 *
 * Fast paths: without filters the count comes from asset_group_tag_member_counts and a page in
 * node-id order is an `ord` range (index tag_ord), so skip=190000 costs what skip=0 costs.
 * `~eq` on name / object_id: PostgreSQL uses the engine's `lower(col) like '%x%'` through the GIN
 * trigram indexes; SQLite cannot index that form, so a superset condition through the FTS5 trigram
 * table is ANDed on (the engine's exact condition still decides).
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import type { Database } from '../../db/database.ts';
import { applyPaging, applySort, defineQuery, filterConditions, type ParsedQuery } from '../../http/query/index.ts';
import { indexedMatches, indexStillValid, type Matches } from './members.index.ts';

export const membersQuery = defineQuery({
  filters: {
    name: { kind: 'string', column: 'm.name', predicates: ['eq', '~eq', 'neq'] },
    object_id: { kind: 'string', column: 'm.objectid', predicates: ['eq', '~eq', 'neq'] },
    primary_kind: { kind: 'string', column: 'm.primary_kind', predicates: ['eq', '~eq', 'neq'] },
  },
  sortable: { id: 'm.node_id', objectid: 'm.objectid', name: 'm.name' },
  defaultSort: [{ column: 'id' }],
  tieBreaker: 'm.node_id',
  paging: { defaultLimit: 50 },
  params: { environments: { type: 'string[]', description: 'environment ids (domain SID / tenant id); repeatable' } },
});

/** One member as JSON text; `properties` is stored JSON object text and is embedded as is. */
export function memberJson(r: MemberRow, tagId: number, extra = ''): string {
  const properties = typeof r.properties === 'string' && r.properties.startsWith('{') ? r.properties : '{}';
  return `{"id":${Number(r.node_id)},"object_id":${JSON.stringify(r.objectid)},"environment_id":${JSON.stringify(r.environment_id ?? '')},`
    + `"primary_kind":${JSON.stringify(r.primary_kind)},"name":${JSON.stringify(r.name)},"properties":${properties},"source":${r.source},`
    + `"asset_group_tag_id":${tagId}${extra}}`;
}

export interface MemberRow {
  node_id: number;
  objectid: string;
  name: string;
  primary_kind: string;
  environment_id: string | null;
  source: number;
  properties: string;
}

/** The `environments` parameter; none given (an empty list) means every environment. */
export function environmentsOf(parsed: Pick<ParsedQuery, 'params'>): string[] | undefined {
  const values = parsed.params.environments as string[] | undefined;
  return values && values.length > 0 ? values : undefined;
}

const FTS_COLUMN: Record<string, string> = { name: 'name', object_id: 'objectid' };

/** Members per primary kind, optionally only in some environments. */
export async function memberCounts(k: Kysely<Database>, tagId: number, environments?: string[]) {
  if (!environments) {
    return k.selectFrom('asset_group_tag_member_counts').select(['primary_kind', 'member_count as count'])
      .where('tag_id', '=', tagId).orderBy('primary_kind').execute();
  }
  return k.selectFrom('asset_group_tag_members').select(['primary_kind', (eb) => eb.fn.countAll<number>().as('count')])
    .where('tag_id', '=', tagId).where('environment_id', 'in', environments)
    .groupBy('primary_kind').orderBy('primary_kind').execute();
}

const PAGE_COLUMNS = ['m.node_id', 'm.objectid', 'm.name', 'm.primary_kind', 'm.environment_id', 'm.source', 'n.properties'] as const;

export class MembersQuery {
  private readonly environments?: string[];
  /** Sorted or filtered requests: their matches from the in-process index (members.index.ts), once asked. */
  private indexed?: Promise<Matches | null>;
  private built?: { conditions: Expression<SqlBool>[]; ftsDriven: boolean };
  /** Whether the last pageJson was made of kept members' JSON only (no statement). */
  fromKept = false;

  constructor(private readonly db: Db, private readonly tagId: number, private readonly parsed: ParsedQuery) {
    this.environments = environmentsOf(parsed);
  }

  /** The filters as SQL, built when the database is asked (a page the index answers needs none). */
  private get conditions(): Expression<SqlBool>[] {
    return this.sqlFilters().conditions;
  }

  /** SQLite with FTS candidates: the tag test must not pick the (tag_id, ...) index over them. */
  private get ftsDriven(): boolean {
    return this.sqlFilters().ftsDriven;
  }

  private sqlFilters() {
    if (!this.built) {
      const fts = this.db.dialect === 'sqlite' ? ftsConditions(this.parsed) : [];
      this.built = { conditions: [...filterConditions(membersQuery, this.parsed), ...fts], ftsDriven: fts.length > 0 };
    }
    return this.built;
  }

  private get unfiltered(): boolean {
    return this.conditions.length === 0 && !this.environments;
  }

  /** Sorted by node id only (ascending or descending), so `ord` can stand for position. */
  private get ordDirection(): 'asc' | 'desc' | null {
    const s = this.parsed.sort;
    if (s.length === 0) return 'asc';
    if (s.length === 1 && s[0].name === 'id') return s[0].descending ? 'desc' : 'asc';
    return null;
  }

  private base() {
    let qb = this.db.kysely.selectFrom('asset_group_tag_members as m')
      // Unary plus (SQLite): the same test, but not usable as an index, so the FTS rowids drive the plan.
      .where(this.ftsDriven ? sql<SqlBool>`+m.tag_id = ${this.tagId}` : sql<SqlBool>`m.tag_id = ${this.tagId}`);
    if (this.environments) qb = qb.where('m.environment_id', 'in', this.environments);
    for (const c of this.conditions) qb = qb.where(c);
    return qb;
  }

  private matches() {
    return (this.indexed ??= this.ordDirection && this.unfiltered ? Promise.resolve(null) : indexedMatches(this.db, this.tagId, this.parsed, this.environments));
  }

  async count(): Promise<number> {
    // Sorted or filtered: the index's matches (unfiltered: every member, the sum of the member counts).
    const indexed = await this.matches();
    if (indexed) return indexed.count;
    if (this.unfiltered) {
      const row = await this.db.kysely.selectFrom('asset_group_tag_member_counts')
        .select((eb) => eb.fn.sum<number>('member_count').as('n')).where('tag_id', '=', this.tagId).executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    const row = await this.base().select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * One page as each member's JSON (memberJson) in UTF-8. Sorted or filtered pages take the members' JSON kept by the
   * index (members.index.ts: valid while the members and nodes tables are unchanged) and read only the others, by
   * `ord`; the first such miss starts the pass that keeps the whole tag's (a range of `ord` per statement). Bytes, not
   * strings: a page is then one copy of flat bytes (joining kept strings flattens them every time).
   */
  async pageJson(skip: number, limit: number, total: number): Promise<Buffer[]> {
    const indexed = await this.matches();
    if (indexed) {
      const wanted = indexed.page(skip, limit);
      const kept = indexed.rendered(); // taken before the read
      const out = new Array<Buffer>(wanted.length);
      const missing: number[] = [];
      for (let i = 0; i < wanted.length; i++) {
        const json = kept?.get(wanted[i]);
        if (json === undefined) missing.push(wanted[i]);
        else out[i] = json;
      }
      if (missing.length === 0) {
        this.fromKept = true;
        return out;
      }
      // The rest of the tag's members are read once, a range of positions at a time, between other requests.
      kept?.fill(async (from, to) => {
        const rows = (await this.db.kysely.selectFrom('asset_group_tag_members as m').innerJoin('nodes as n', 'n.id', 'm.node_id')
          .select([...PAGE_COLUMNS, 'm.ord']).where('m.tag_id', '=', this.tagId).where('m.ord', '>=', from).where('m.ord', '<', to)
          .execute()) as Array<MemberRow & { ord: number }>;
        return rows.map(({ ord, ...row }) => ({ position: Number(ord), json: memberJson(row, this.tagId) }));
      });
      const rows = (await this.db.kysely.selectFrom('asset_group_tag_members as m').innerJoin('nodes as n', 'n.id', 'm.node_id')
        .select([...PAGE_COLUMNS, 'm.ord']).where('m.tag_id', '=', this.tagId).where('m.ord', 'in', missing).execute()) as Array<MemberRow & { ord: number }>;
      if (rows.length === missing.length && indexStillValid(this.db, indexed.stamp)) {
        const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
        for (let i = 0; i < wanted.length; i++) {
          if (out[i] !== undefined) continue;
          const { ord: _, ...row } = byOrd.get(wanted[i])!;
          const json = memberJson(row, this.tagId);
          out[i] = kept ? kept.keep(wanted[i], json) : Buffer.from(json);
        }
        return out;
      }
      this.indexed = Promise.resolve(null); // changed meanwhile: the database answers
    }
    return (await this.page(skip, limit, total)).map((r) => Buffer.from(memberJson(r, this.tagId)));
  }

  /** One page: skip/limit (limit 0 = to the end). `total` is this.count(), used by the descending ord path. */
  async page(skip: number, limit: number, total: number): Promise<MemberRow[]> {
    const select = PAGE_COLUMNS;
    const direction = this.ordDirection;
    if (this.unfiltered && direction) {
      let qb = this.db.kysely.selectFrom('asset_group_tag_members as m').innerJoin('nodes as n', 'n.id', 'm.node_id')
        .select(select).where('m.tag_id', '=', this.tagId);
      qb = direction === 'asc'
        ? qb.where('m.ord', '>=', skip).orderBy('m.ord', 'asc')
        : qb.where('m.ord', '<', total - skip).orderBy('m.ord', 'desc');
      if (limit > 0) qb = qb.limit(limit);
      return (await qb.execute()) as MemberRow[];
    }
    const indexed = await this.matches();
    if (indexed) {
      // The page's rows by position; the order is the index's. Unchanged table after the read: the answer.
      const wanted = indexed.page(skip, limit);
      if (wanted.length === 0) return [];
      const rows = (await this.db.kysely.selectFrom('asset_group_tag_members as m').innerJoin('nodes as n', 'n.id', 'm.node_id')
        .select([...select, 'm.ord']).where('m.tag_id', '=', this.tagId).where('m.ord', 'in', [...wanted]).execute()) as Array<MemberRow & { ord: number }>;
      if (rows.length === wanted.length && indexStillValid(this.db, indexed.stamp)) {
        const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
        return Array.from(wanted, (p) => {
          const { ord: _, ...row } = byOrd.get(p)!;
          return row;
        });
      }
      this.indexed = Promise.resolve(null); // changed meanwhile: the database answers
    }
    let qb = this.base().innerJoin('nodes as n', 'n.id', 'm.node_id').select(select);
    qb = applyPaging(applySort(qb, membersQuery, this.parsed), { skip, limit });
    return (await qb.execute()) as MemberRow[];
  }
}

/**
 * SQLite: for each of name / object_id whose eq+~eq group holds ~eq operands of 3+ characters,
 * `m.id in (FTS trigram candidates)` (or the eq values). Always a superset of the engine's group.
 */
function ftsConditions(parsed: ParsedQuery): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  for (const [filter, column] of Object.entries(FTS_COLUMN)) {
    const group = parsed.filters.filter((f) => f.name === filter && (f.predicate === 'eq' || f.predicate === '~eq'));
    const contains = group.filter((f) => f.predicate === '~eq').flatMap((f) => f.values.map(String));
    if (contains.length === 0) continue;
    if (contains.some((v) => [...v].length < 3 || v.includes('\u0000'))) continue; // trigrams cannot help
    const match = contains.map((v) => `${column} : "${v.toLowerCase().replaceAll('"', '""')}"`).join(' OR ');
    const candidates = sql<SqlBool>`m.id in (select rowid from asset_group_tag_members_fts where asset_group_tag_members_fts match ${match})`;
    const equals = group.filter((f) => f.predicate === 'eq').flatMap((f) => f.values.map(String));
    out.push(equals.length === 0 ? candidates
      : sql<SqlBool>`(${candidates} or ${sql.ref(`m.${column}`)} in (${sql.join(equals)}))`);
  }
  return out;
}

/** One member of a tag with its node's properties. */
export async function findMember(k: Kysely<Database>, tagId: number, nodeId: number): Promise<MemberRow | undefined> {
  return k.selectFrom('asset_group_tag_members as m').innerJoin('nodes as n', 'n.id', 'm.node_id')
    .select(['m.node_id', 'm.objectid', 'm.name', 'm.primary_kind', 'm.environment_id', 'm.source', 'n.properties'])
    .where('m.tag_id', '=', tagId).where('m.node_id', '=', nodeId)
    .executeTakeFirst() as Promise<MemberRow | undefined>;
}
