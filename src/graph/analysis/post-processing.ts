/**
 * BloodHound's post-processing after every ingest (docs/ingest-and-analysis.md, "Analysis"): the
 * node passes of well-known.ts, then every post-processed edge kind deleted and the rules of
 * rules.ts run in order. One transaction (on PostgreSQL under the graph writers' advisory lock):
 * readers see the graph before or after, never half.
 * Idempotent: a second run over the same graph derives the same edges.
 */
import { sql } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { PG_LOCK_KEY } from '../bulk/writer.ts';
import { AnalysisContext } from './context.ts';
import { POST_PROCESSED_KINDS, RULES } from './rules.ts';
import { domainAssociations, fixWellKnownNodeTypes, linkWellKnownNodes } from './well-known.ts';

export interface PostProcessingResult {
  /** Derived edges written, per kind (well-known MemberOf / ClaimSpecialIdentity links included). */
  edges: Record<string, number>;
  /** Post-processed edges deleted before the rules ran. */
  deleted: number;
  seconds: number;
}

export async function postProcess(db: Db): Promise<PostProcessingResult> {
  const started = performance.now();
  return db.kysely.transaction().execute(async (trx) => {
    // PostgreSQL: the graph writers' lock, so that an ingest on another server never interleaves (SQLite has one writer).
    if (db.dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(${PG_LOCK_KEY}, hashtext(current_schema()))`.execute(trx);
      // Statistics of the graph just ingested: autovacuum analyses a table a minute or more after it
      // changed, so after a large ingest the planner would otherwise plan the rules for the graph as it
      // was (an empty one after the first import: post-processing 12.6 → 7.9 s at 100,000 users, load 5–8). ANALYZE samples a
      // few thousand rows, inside the transaction, and blocks neither readers nor writers.
      await sql`analyze nodes, edges`.execute(trx);
    }
    const ctx = new AnalysisContext(trx, nowMicros(), db.dialect);
    await fixWellKnownNodeTypes(ctx);
    await domainAssociations(ctx);
    await linkWellKnownNodes(ctx);
    const kinds = sql.join([...POST_PROCESSED_KINDS]);
    // SQLite finds them in an index holding the kind (edges_end_kind_start) rather than in a pass over the table.
    const deleted = await (db.dialect === 'sqlite'
      ? sql`delete from edges where id in (select id from edges where kind in (${kinds}))`
      : sql`delete from edges where kind in (${kinds})`).execute(trx);
    for (const rule of RULES) await rule.derive(ctx);
    return {
      edges: Object.fromEntries([...ctx.counts].sort(([a], [b]) => a.localeCompare(b))),
      deleted: Number(deleted.numAffectedRows ?? 0),
      seconds: (performance.now() - started) / 1000,
    };
  });
}
