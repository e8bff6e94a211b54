import { Type, type Static } from '@sinclair/typebox';
import { audited, auditNote } from '../../audit/audit.ts';
import { postProcess } from '../../graph/analysis/post-processing.ts';
import { errorResponses } from '../../http/envelope.ts';
import { route } from '../../http/route.ts';
import { flagEnabled } from '../app-config/feature-gate.ts';
import { refreshTagMemberships } from '../asset-group-tags/membership.service.ts';
import { clear, planClear } from './clear-database.service.ts';

const ClearBody = Type.Object({
  deleteCollectedGraphData: Type.Optional(Type.Boolean({ description: 'every node and edge of the graph' })),
  deleteSourceKinds: Type.Optional(Type.Array(Type.Integer(), { description: 'the nodes (and their edges) of these source kinds, by the ids of GET /api/v2/graphs/source-kinds; 0 = nodes of no source kind. Not with deleteCollectedGraphData' })),
  deleteRelationships: Type.Optional(Type.Array(Type.String(), { description: 'every edge of these kinds' })),
  deleteAssetGroupSelectors: Type.Optional(Type.Array(Type.Integer(), { description: 'tag ids (1 Tier Zero, 2 Owned): their custom selectors; the default selectors stay' })),
  deleteFileIngestHistory: Type.Optional(Type.Boolean({ description: 'finished file-upload jobs and their files (jobs still running stay)' })),
  deleteDataQualityHistory: Type.Optional(Type.Boolean({ description: 'every data-quality record' })),
});

export const clearDatabaseRoutes = [
  route<{ Body: Static<typeof ClearBody> }>({
    method: 'POST',
    url: '/api/v2/clear-database',
    config: { access: { permissions: ['db/Wipe'] }, audit: { action: 'DeleteBloodhoundData' } },
    schema: {
      tags: ['database'],
      summary: 'Delete collected data: the graph (all, or by source kind), edges by kind, custom selectors, file-upload history, data-quality history',
      description: 'Everything asked for is deleted in one transaction before the answer (204). When the graph or the selectors changed, '
        + 'the post-processed edges and tag memberships are derived again, as after an ingest. Deleting graph data needs the '
        + '`clear_graph_data` feature flag (on by default).',
      body: ClearBody,
      response: { 204: Type.Null(), ...errorResponses(400, 401, 403) },
    },
    handler: async (request, reply) => {
      const db = request.server.db;
      auditNote(request, { fields: { options: request.body } });
      const plan = await planClear(db, request.body, await flagEnabled(db, 'clear_graph_data'));
      const deleted = await audited(request, (trx) => clear(trx, plan));
      request.log.info({ deleted }, 'data cleared');
      if (plan.graph || plan.relationships.length) await postProcess(db);
      if (plan.graph || plan.relationships.length || plan.selectorTags.length) await refreshTagMemberships(db);
      return reply.code(204).send();
    },
  }),
];
