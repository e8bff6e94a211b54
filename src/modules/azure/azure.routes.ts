/**
 * GET /api/v2/azure/{entity_type}?object_id=... : an Azure node's properties with the counts of its
 * entity type (./azure.table.ts), or with `related_entity_type` one of its related lists, paged
 * (default limit 100, node id descending, as BloodHound) or as a flat graph map (`type=graph`).
 */
import { Type } from '@sinclair/typebox';
import { graphEngine, type GraphView } from '../../graph/engine/index.ts';
import { checkGraphLimit } from '../../graph/answers/limits.ts';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { badRequest, Messages, notFound } from '../../http/errors.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { findEntity, relatedGraph } from '../entities/entities.service.ts';
import type { Subject } from '../entities/traversals.ts';
import { AZURE_TYPES, READERS, RELATED } from './azure.table.ts';

const json = 'application/json; charset=utf-8';
const READS = ['nodes', 'edges', 'asset_group_tags', 'asset_group_tag_members'] as const;

const azureQuery = defineQuery({
  paging: { defaultLimit: 100 },
  params: {
    object_id: { type: 'string', description: 'objectid of the Azure node (required)' },
    related_entity_type: { type: 'string', enum: Object.keys(RELATED), description: 'answer this related list instead of the node' },
    type: { type: 'string', enum: ['list', 'graph'], default: 'list', description: 'related list as a page (list) or a flat graph map (graph)' },
    counts: { type: 'boolean', default: true, description: 'compute the count fields (false: they are 0)' },
  },
});

const AzureNode = Type.Object({
  kind: Type.String(), kinds: Type.Array(Type.String()), isTierZero: Type.Boolean(), isOwnedObject: Type.Boolean(),
  props: Type.Object({}, { additionalProperties: true }),
}, { additionalProperties: true });

async function counts(s: Subject, type: string, hydrate: boolean): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const size = async (related: string) => (hydrate ? (await RELATED[related](s)).nodes.length : 0);
  for (const [key, related] of AZURE_TYPES[type]) {
    if (related) out[key] = await size(related);
    else if (key === 'Readers') out.Readers = Object.fromEntries(await Promise.all(Object.entries(READERS).map(async ([k, r]) => [k, await size(r)])));
    else out.descendents = { descendent_counts: hydrate ? descendantCounts(s) : {} };
  }
  return out;
}

/** Descendants over AZContains, counted by primary kind. */
function descendantCounts(s: Subject): Record<string, number> {
  const w = s.view.walk({ roots: [s.id], direction: 'outbound', kinds: ['AZContains'] });
  const out: Record<string, number> = {};
  for (const id of w.reached) if (id !== s.id) out[s.view.primaryKind(id)] = (out[s.view.primaryKind(id)] ?? 0) + 1;
  return out;
}

async function nodeAnswer(view: GraphView, ids: number[]) {
  return (await view.nodes(ids, { properties: true })).map((n) => ({
    kind: n.primaryKind, kinds: n.kinds, isTierZero: n.isTierZero, isOwnedObject: n.isOwned, props: { ...n.properties, objectid: n.objectid },
  }));
}

export const azureRoutes = [
  route<{ Params: { entity_type: string } }>({
    method: 'GET',
    url: '/api/v2/azure/:entity_type',
    config: { access: { permissions: ['graphdb/Read'] }, query: azureQuery, cache: { reads: READS } },
    schema: {
      tags: ['azure'], summary: 'An Azure node with its entity type\'s counts, or one of its related lists (related_entity_type)',
      params: Type.Object({ entity_type: Type.String({ enum: Object.keys(AZURE_TYPES) }) }),
      response: { 200: Type.Union([DataEnvelope(AzureNode), PageEnvelope(Type.Array(AzureNode)), Type.Record(Type.String(), Type.Unknown())]), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const type = request.params.entity_type;
      if (!Object.hasOwn(AZURE_TYPES, type)) throw notFound();
      const { skip, limit, params } = request.parsedQuery;
      const objectId = params.object_id as string | undefined;
      if (!objectId) throw badRequest(Messages.malformedParam('object_id'));
      const view = await graphEngine(db).view();
      const id = await findEntity(db, view, objectId, 'AZBase');
      const subject = { view, db, id };
      const related = params.related_entity_type as string | undefined;
      reply.type(json);
      if (!related) {
        const [node] = await nodeAnswer(view, [id]);
        return reply.send(JSON.stringify({ data: { ...node, ...(await counts(subject, type, params.counts !== false)) } }));
      }
      const result = await RELATED[related](subject);
      if (params.type === 'graph') return reply.send(JSON.stringify(await relatedGraph(view, id, result, config.graphResultLimit)));
      const ordered = [...result.nodes].sort((a, b) => b - a).slice(skip, limit === 0 ? undefined : skip + limit);
      checkGraphLimit(ordered.length, config.graphResultLimit);
      return reply.send(JSON.stringify({ count: result.nodes.length, limit, skip, data: await nodeAnswer(view, ordered) }));
    },
  }),
];
