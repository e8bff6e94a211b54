/**
 * GET /api/v2/<type>/{object_id} and GET /api/v2/<type>/{object_id}/<list>, generated from the
 * declaration table (./entities.table.ts). Info: the node's properties and the count of each
 * related list (`counts=false` skips them). Lists: `type=list` (paged, sortable by name / objectid /
 * label, default node id descending as BloodHound) or `type=graph` (BloodHound's flat graph map).
 */
import { Type } from '@sinclair/typebox';
import { graphEngine } from '../../graph/engine/index.ts';
import { checkGraphLimit } from '../../graph/answers/limits.ts';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route, type Route } from '../../http/route.ts';
import { ENTITY_TYPES, type EntityType, type RelatedList } from './entities.table.ts';
import { findEntity, findEntityRow, page, relatedGraph } from './entities.service.ts';

type ObjectIdParams = { Params: { object_id: string } };
const params = Type.Object({ object_id: Type.String({ description: 'objectid of the entity (SID, GUID, ...)' }) });
const READS = ['nodes', 'edges', 'asset_group_tags', 'asset_group_tag_members'] as const;

const infoQuery = defineQuery({ params: { counts: { type: 'boolean', default: true, description: 'include the count of each related list' } } });

const listQuery = (graph: boolean) => defineQuery({
  sortable: { name: 'n.name', objectid: 'n.objectid', label: 'n.kind' },
  paging: { defaultLimit: 10 },
  params: {
    type: graph
      ? { type: 'string', enum: ['list', 'graph'], default: 'list', description: 'list (paged) or graph (BloodHound\'s flat graph map)' }
      : { type: 'string', enum: ['list'], default: 'list', description: 'list (paged); this list has no graph form' },
  },
});
const LIST_QUERY = listQuery(true);
const LIST_ONLY_QUERY = listQuery(false);

const ListItem = Type.Object({ objectID: Type.String(), name: Type.String(), label: Type.String({ description: 'primary kind' }), kinds: Type.Array(Type.String()) });
const Info = Type.Object({
  kind: Type.String(), kinds: Type.Array(Type.String()), props: Type.Object({}, { additionalProperties: true }),
}, { additionalProperties: Type.Integer(), description: 'plus one integer per related list (see the list routes), unless counts=false' });

const json = 'application/json; charset=utf-8';

function infoRoute(t: EntityType): Route {
  const counted = [
    ...t.lists.filter((l) => l.count).map((l) => ({ count: l.count!, traversal: l.traversal })),
    ...(t.counts ?? []),
  ];
  return route<ObjectIdParams>({
    method: 'GET',
    url: `/api/v2/${t.path}/:object_id`,
    config: { access: { permissions: ['graphdb/Read'] }, query: infoQuery, cache: { reads: READS } },
    schema: {
      tags: ['entities'], summary: `A ${t.kind} node: properties and the size of each related list (${counted.map((c) => c.count).join(', ') || 'none'})`,
      params, response: { 200: DataEnvelope(Info), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { db } = request.server;
      const view = await graphEngine(db).view();
      // The row found is the node's record too (one statement, not two).
      const node = view.nodeFromRow(await findEntityRow(db, view, request.params.object_id, t.kind), { properties: true });
      const { id } = node;
      const props: Record<string, unknown> = { ...node.properties, objectid: node.objectid, name: node.name ?? node.objectid };
      const data: Record<string, unknown> = { kind: node.primaryKind, kinds: node.kinds, props };
      if (request.parsedQuery.params.counts === false) {
        if (node.isTierZero) props.isTierZero = true;
      } else {
        for (const c of counted) data[c.count] = (await c.traversal({ view, db, id })).nodes.length;
      }
      return reply.type(json).send(JSON.stringify({ data }));
    },
  });
}

function listRoute(t: EntityType, l: RelatedList): Route {
  return route<ObjectIdParams>({
    method: 'GET',
    url: `/api/v2/${t.path}/:object_id/${l.path}`,
    config: { access: { permissions: ['graphdb/Read'] }, query: l.listOnly ? LIST_ONLY_QUERY : LIST_QUERY, cache: { reads: READS } },
    schema: {
      tags: ['entities'], summary: `Related list "${l.path}" of a ${t.kind}`, params,
      response: {
        200: l.listOnly ? PageEnvelope(Type.Array(ListItem)) : Type.Union([PageEnvelope(Type.Array(ListItem)), Type.Record(Type.String(), Type.Unknown())]),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const { skip, limit, sort, params: { type } } = request.parsedQuery;
      const view = await graphEngine(db).view();
      const id = await findEntity(db, view, request.params.object_id, t.kind);
      const related = await l.traversal({ view, db, id });
      reply.type(json);
      if (type === 'graph') return reply.send(JSON.stringify(await relatedGraph(view, id, related, config.graphResultLimit)));
      const count = related.nodes.length;
      checkGraphLimit(Math.min(limit === 0 ? count : limit, Math.max(0, count - skip)), config.graphResultLimit);
      const rows = await page(db, view, `${t.path}/${l.path}/${id}`, related.nodes, sort, skip, limit);
      const data = rows.map((r) => ({ objectID: r.objectid, name: r.name, label: r.kind, kinds: view.kinds(r.id) }));
      return reply.send(JSON.stringify({ count, skip, limit, data }));
    },
  });
}

export const entityRoutes: Route[] = ENTITY_TYPES.flatMap((t) => [
  ...(t.externalInfo ? [] : [infoRoute(t)]),
  ...t.lists.filter((l) => !l.external).map((l) => listRoute(t, l)),
]);
