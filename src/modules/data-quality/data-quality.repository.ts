import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { applyPaging, applySort, type CompiledQuery, type ParsedQuery } from '../../http/query/index.ts';

export type RecordTable = 'ad_data_quality_aggregations' | 'ad_data_quality_stats' | 'azure_data_quality_aggregations' | 'azure_data_quality_stats';

/** Records with start <= created_at < end (and the scope column), sorted and paged, plus the total. */
export async function listRecords(
  db: Kysely<Database>, table: RecordTable, query: CompiledQuery, parsed: ParsedQuery,
  range: { start: number; end: number }, scope?: { column: 'domain_sid' | 'tenant_id'; value: string },
): Promise<{ rows: Array<Record<string, unknown>>; count: number }> {
  // The four tables share their id/timestamp/run_id columns; the union type is too wide for Kysely.
  const k = db as unknown as Kysely<Record<string, { id: number; created_at: number; updated_at: number; domain_sid: string; tenant_id: string }>>;
  let base = k.selectFrom(table).where('created_at', '>=', range.start).where('created_at', '<', range.end);
  if (scope) base = base.where(scope.column, '=', scope.value);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await applyPaging(applySort(base.selectAll(), query, parsed), parsed).execute();
  return { rows: rows as Array<Record<string, unknown>>, count: Number(total.n) };
}

/**
 * When the set of records in a range [start, end) can next change without a write: the oldest record
 * in it leaves a window that slides with the clock once `start` passes it (`sliding`: start moves
 * with end), and the next record dated at or after `end` (another instance's clock may run ahead)
 * enters once `end` reaches it. Infinity when neither can happen.
 */
export async function rangeStableUntil(
  db: Kysely<Database>, table: RecordTable, range: { start: number; end: number }, window: number | null,
  scope?: { column: 'domain_sid' | 'tenant_id'; value: string },
): Promise<number> {
  const k = db as unknown as Kysely<Record<string, { created_at: number; domain_sid: string; tenant_id: string }>>;
  const scoped = <Q extends { where: (...a: never[]) => Q }>(q: Q): Q => (scope ? (q.where as (c: string, o: string, v: string) => Q)(scope.column, '=', scope.value) : q);
  const next = await scoped(k.selectFrom(table).select((eb) => eb.fn.min<number>('created_at').as('t')).where('created_at', '>=', range.end)).executeTakeFirst();
  let until = next?.t == null ? Infinity : Number(next.t);
  if (window !== null) {
    const oldest = await scoped(k.selectFrom(table).select((eb) => eb.fn.min<number>('created_at').as('t'))
      .where('created_at', '>=', range.start).where('created_at', '<', range.end)).executeTakeFirst();
    // The record at `oldest` is still in the range while now - window <= oldest.
    if (oldest?.t != null) until = Math.min(until, Number(oldest.t) + window + 1);
  }
  return until;
}
