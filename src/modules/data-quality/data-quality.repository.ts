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
