/**
 * Clearing data (`POST /api/v2/clear-database`, BloodHound's "Database Management"): the collected graph
 * (all of it, or the nodes of some source kinds), edges by kind, the custom selectors of tags, the
 * finished file-upload jobs, the data-quality history. Everything asked for is deleted in ONE
 * transaction (on PostgreSQL under the graph writers' lock): a failure deletes nothing. When the graph
 * or the selectors changed, the post-processed edges and the tag memberships are derived again
 * afterwards, as after an ingest (no data-quality record: a deletion is not a collection).
 */
import { sql } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import { PG_LOCK_KEY } from '../../graph/bulk/writer.ts';
import { listSourceKinds, SOURCELESS_ID } from '../../graph/source-kinds.ts';
import { badRequest } from '../../http/errors.ts';
import { deleteSelector } from '../asset-group-tags/selectors.repository.ts';

export interface ClearRequest {
  deleteCollectedGraphData?: boolean;
  /** Source kind ids of `GET /graphs/source-kinds` (0 = nodes of no source kind). */
  deleteSourceKinds?: number[];
  /** Edge kinds whose edges are deleted. */
  deleteRelationships?: string[];
  /** Tag ids (1 Tier Zero, 2 Owned, ...) whose custom (non-default) selectors are deleted. */
  deleteAssetGroupSelectors?: number[];
  deleteFileIngestHistory?: boolean;
  deleteDataQualityHistory?: boolean;
}

export const Refusals = {
  nothing: 'please select something to delete',
  mixed: 'request may only specify either deleteCollectedGraphData or deleteSourceKinds, not both',
  disabled: 'deleting graph data is currently disabled',
  unknownSourceKind: (id: number) => `failure building delete request: requested source kind id ${id} not found`,
} as const;

/** Upload jobs that are still taking files or being ingested keep their rows (their worker needs them). */
const ACTIVE_UPLOAD_STATUSES = [0, 1, 6, 7];

export interface ClearPlan {
  graph: 'all' | { sourceKinds: string[]; sourceless: boolean } | null;
  relationships: string[];
  selectorTags: number[];
  fileHistory: boolean;
  dataQuality: boolean;
}

/** Checks a request as BloodHound does and resolves its source kind ids; throws the 400s. */
export async function planClear(db: Db, body: ClearRequest, graphClearingEnabled: boolean): Promise<ClearPlan> {
  const sourceIds = [...new Set(body.deleteSourceKinds ?? [])];
  const relationships = [...new Set(body.deleteRelationships ?? [])];
  const selectorTags = [...new Set(body.deleteAssetGroupSelectors ?? [])];
  const all = body.deleteCollectedGraphData === true;
  if (!all && !sourceIds.length && !relationships.length && !selectorTags.length && !body.deleteFileIngestHistory && !body.deleteDataQualityHistory) {
    throw badRequest(Refusals.nothing);
  }
  if (all && sourceIds.length) throw badRequest(Refusals.mixed);
  let graph: ClearPlan['graph'] = null;
  if (all || sourceIds.length) {
    if (!graphClearingEnabled) throw badRequest(Refusals.disabled);
    if (all) graph = 'all';
    else {
      const known = new Map((await listSourceKinds(db)).map((k) => [k.id, k.name]));
      const sourceKinds: string[] = [];
      for (const id of sourceIds) {
        if (id === SOURCELESS_ID) continue;
        const name = known.get(id);
        if (name === undefined) throw badRequest(Refusals.unknownSourceKind(id));
        sourceKinds.push(name);
      }
      graph = { sourceKinds, sourceless: sourceIds.includes(SOURCELESS_ID) };
    }
  }
  return { graph, relationships, selectorTags, fileHistory: body.deleteFileIngestHistory === true, dataQuality: body.deleteDataQualityHistory === true };
}

export interface ClearResult {
  nodes: number;
  edges: number;
  selectors: number;
  uploadJobs: number;
  dataQualityRecords: number;
}

const affected = (r: { numAffectedRows?: bigint } | { numDeletedRows: bigint }) =>
  Number('numDeletedRows' in r ? r.numDeletedRows : (r.numAffectedRows ?? 0));

/** Deletes what the plan names, inside the caller's transaction (`db` is joined to it). */
export async function clear(db: Db, plan: ClearPlan): Promise<ClearResult> {
  const k = db.kysely;
  const result: ClearResult = { nodes: 0, edges: 0, selectors: 0, uploadJobs: 0, dataQualityRecords: 0 };
  if ((plan.graph || plan.relationships.length) && db.dialect === 'postgres') {
    await sql`select pg_advisory_xact_lock(${PG_LOCK_KEY}, hashtext(current_schema()))`.execute(k);
  }
  if (plan.graph === 'all') {
    result.edges += affected(await k.deleteFrom('edges').executeTakeFirst());
    result.nodes += affected(await k.deleteFrom('nodes').executeTakeFirst());
  } else if (plan.graph) {
    const { sourceKinds, sourceless } = plan.graph;
    const doomed = sql`(select id from nodes where ${sql.join([
      ...(sourceKinds.length ? [sql`source_kind in (${sql.join(sourceKinds)})`] : []),
      ...(sourceless ? [sql`source_kind is null or source_kind = ''`] : []),
    ], sql` or `)})`;
    result.edges += affected(await sql`delete from edges where start_id in ${doomed} or end_id in ${doomed}`.execute(k));
    result.nodes += affected(await sql`delete from nodes where id in ${doomed}`.execute(k));
  }
  if (plan.relationships.length) {
    result.edges += affected(await k.deleteFrom('edges').where('kind', 'in', plan.relationships).executeTakeFirst());
  }
  if (plan.selectorTags.length) {
    const custom = await k.selectFrom('asset_group_tag_selectors').select('id')
      .where('asset_group_tag_id', 'in', plan.selectorTags).where('is_default', '=', 0).execute();
    for (const { id } of custom) await deleteSelector(k, id);
    result.selectors = custom.length;
  }
  if (plan.fileHistory) {
    const finished = k.selectFrom('file_upload_jobs').select('id').where('status', 'not in', ACTIVE_UPLOAD_STATUSES);
    const files = k.selectFrom('file_upload_files').select('id').where('job_id', 'in', finished);
    await k.deleteFrom('file_upload_chunks').where('file_id', 'in', files).execute();
    await k.deleteFrom('file_upload_files').where('job_id', 'in', finished).execute();
    result.uploadJobs = affected(await k.deleteFrom('file_upload_jobs').where('status', 'not in', ACTIVE_UPLOAD_STATUSES).executeTakeFirst());
  }
  if (plan.dataQuality) {
    for (const table of ['ad_data_quality_stats', 'ad_data_quality_aggregations', 'azure_data_quality_stats', 'azure_data_quality_aggregations'] as const) {
      result.dataQualityRecords += affected(await k.deleteFrom(table).executeTakeFirst());
    }
  }
  return result;
}
