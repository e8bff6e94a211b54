/**
 * Graph routes of BloodHound's Explore page (reference §4.3–§4.6): shortest paths (unified graph),
 * pathfinding (deprecated, flat map), kinds and source kinds, and the edge detail routes.
 */
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import { checkGraphLimit } from '../../graph/answers/limits.ts';
import { flatGraph } from '../../graph/answers/flat-graph.ts';
import { unifiedGraph } from '../../graph/answers/unified-graph.ts';
import { graphEngine, type Edge, type GraphView } from '../../graph/engine/index.ts';
import { findNodeByObjectId } from '../../graph/store.repository.ts';
import { listSourceKinds } from '../../graph/source-kinds.ts';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { badRequest, Messages, notFound } from '../../http/errors.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { checkObjectId } from '../entities/entities.service.ts';
import { aclInheritance } from './acl-inheritance.ts';
import { availableDomainsRoute } from './available-domains.ts';
import { AD_NODE_KINDS, AZURE_NODE_KINDS, relationshipKinds, SCHEMA_RELATIONSHIPS } from './kinds.ts';

const READS = ['nodes', 'edges', 'asset_group_tags', 'asset_group_tag_members'] as const;
const json = 'application/json; charset=utf-8';
const access = { permissions: ['graphdb/Read' as const] };
const Unified = Type.Object({ nodes: Type.Record(Type.String(), Type.Unknown()), edges: Type.Array(Type.Unknown()) });

const endpoints = {
  start_node: { type: 'string', description: 'objectid of the start' },
  end_node: { type: 'string', description: 'objectid of the end' },
} as const;
const shortestPathQuery = defineQuery({
  params: { ...endpoints, relationship_kinds: { type: 'string', description: 'in:Kind1,Kind2 (only these) or nin:Kind1,Kind2 (all but these); default every AD and Azure kind' } },
});
const pathfindingQuery = defineQuery({ params: endpoints });

const edgeQuery = defineQuery({
  params: {
    edge_type: { type: 'string', description: 'the edge kind' },
    source_node: { type: 'string', description: 'graph id of the edge start' },
    target_node: { type: 'string', description: 'graph id of the edge end' },
  },
});

/** A node id by objectid (as given, then upper-cased); 404 when there is none. */
async function nodeByObjectId(db: Db, param: string, value: string | undefined): Promise<number> {
  if (!value) throw badRequest(Messages.malformedParam(param));
  checkObjectId(value);
  const row = (await findNodeByObjectId(db.kysely, value)) ?? (value !== value.toUpperCase() ? await findNodeByObjectId(db.kysely, value.toUpperCase()) : undefined);
  if (!row) throw notFound();
  return Number(row.id);
}

/** Whether a parameter is an object id the routes accept (else nodeByObjectId answers the 400). */
function wellFormed(value: unknown): value is string {
  if (typeof value !== 'string' || !value) return false;
  try {
    checkObjectId(value);
    return true;
  } catch {
    return false;
  }
}

/** Node ids of both ends: one statement when both are well formed (a round trip less on PostgreSQL), else in turn (the same 400 / 404). */
async function endpointIds(db: Db, start: unknown, end: unknown): Promise<[number, number]> {
  if (!wellFormed(start) || !wellFormed(end)) {
    return [await nodeByObjectId(db, 'start_node', start as string | undefined), await nodeByObjectId(db, 'end_node', end as string | undefined)];
  }
  const candidates = [...new Set([start, end, start.toUpperCase(), end.toUpperCase()])];
  const rows = await db.kysely.selectFrom('nodes').select(['id', 'objectid']).where('objectid', 'in', candidates).execute();
  const ids = new Map(rows.map((r) => [r.objectid, Number(r.id)]));
  const idOf = (value: string) => ids.get(value) ?? ids.get(value.toUpperCase());
  const from = idOf(start);
  const to = idOf(end);
  if (from === undefined || to === undefined) throw notFound();
  return [from, to];
}

async function shortest(db: Db, view: GraphView, params: Record<string, unknown>, kinds: string[] | undefined) {
  const [from, to] = await endpointIds(db, params.start_node, params.end_node);
  return view.shortestPaths([from], [to], kinds);
}

/** Nodes and edges of an answer, read in batches (bounded by the graph result limit). */
async function records(view: GraphView, edges: readonly Edge[], limit: number) {
  const ids = [...new Set(edges.flatMap((e) => [e.start, e.end]))];
  checkGraphLimit(ids.length + edges.length, limit);
  return Promise.all([view.nodes(ids, { properties: true }), view.edgeDetails(edges.map((e) => e.id))]);
}

/** The edge a detail route names: edge_type from source_node to target_node (graph ids); 404 when absent. */
function namedEdge(view: GraphView, params: Record<string, unknown>): Edge {
  for (const name of ['edge_type', 'source_node', 'target_node']) if (!params[name]) throw badRequest(Messages.malformedParam(name));
  const kind = params.edge_type as string;
  if (!/^[A-Za-z0-9_]{1,200}$/.test(kind)) throw badRequest(Messages.malformedParam('edge_type'));
  const [source, target] = (['source_node', 'target_node'] as const).map((name) => {
    const v = params[name] as string;
    if (!/^\d{1,15}$/.test(v)) throw badRequest(Messages.malformedParam(name));
    return Number(v);
  });
  const edge = view.edgesBetween(source, target, [kind])[0];
  if (!edge) throw notFound();
  return edge;
}

export const graphRoutes = [
  availableDomainsRoute,
  route({
    method: 'GET',
    url: '/api/v2/graphs/shortest-path',
    config: { access, query: shortestPathQuery, cache: { reads: READS } },
    schema: {
      tags: ['graphs'], summary: 'All shortest paths from start_node to end_node (objectids), as a unified graph; 404 when there is none',
      response: { 200: DataEnvelope(Unified), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const view = await graphEngine(db).view();
      const { params } = request.parsedQuery;
      const kinds = relationshipKinds(params.relationship_kinds as string | undefined, new Set(view.allKinds()));
      const found = await shortest(db, view, params, kinds);
      if (!found || found.edges.length === 0) throw notFound();
      const [nodes, edges] = await records(view, found.edges, config.graphResultLimit);
      return reply.type(json).send(JSON.stringify({ data: unifiedGraph(nodes, edges, false) }));
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/pathfinding',
    config: { access, query: pathfindingQuery, cache: { reads: READS } },
    schema: {
      tags: ['graphs'], summary: 'Deprecated: all shortest paths over every kind, as a flat graph map ({} when there is none)',
      response: { 200: DataEnvelope(Type.Record(Type.String(), Type.Unknown())), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const view = await graphEngine(db).view();
      const found = await shortest(db, view, request.parsedQuery.params, undefined);
      if (!found || found.edges.length === 0) return reply.type(json).send(JSON.stringify({ data: {} }));
      const [nodes, edges] = await records(view, found.edges, config.graphResultLimit);
      return reply.type(json).send(JSON.stringify({ data: flatGraph(nodes, edges) }));
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/graphs/kinds',
    config: { access, cache: { reads: READS } },
    schema: {
      tags: ['graphs'], summary: 'Every node, edge and tag kind known: the schema\'s and those in the graph, sorted',
      response: { 200: DataEnvelope(Type.Object({ kinds: Type.Array(Type.String()) })), ...errorResponses(401, 403) },
    },
    handler: async (request) => {
      const view = await graphEngine(request.server.db).view();
      const kinds = new Set([...AD_NODE_KINDS, ...AZURE_NODE_KINDS, ...SCHEMA_RELATIONSHIPS, ...view.allKinds()]);
      return { data: { kinds: [...kinds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) } };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/graphs/source-kinds',
    config: { access, cache: { reads: ['nodes'] } },
    schema: {
      tags: ['graphs'], summary: 'Source kinds of the data: Base (1), AZBase (2), OpenGraph source kinds (3.., by name), and Sourceless (0)',
      response: { 200: DataEnvelope(Type.Object({ kinds: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })) })), ...errorResponses(401, 403) },
    },
    handler: async (request) => {
      return { data: { kinds: await listSourceKinds(request.server.db) } };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/graphs/acl-inheritance',
    config: { access, query: edgeQuery, cache: { reads: READS } },
    schema: {
      tags: ['graphs'], summary: 'Where an inherited ACE edge comes from: the containers up to the one whose ACE it inherits, and the edge',
      response: { 200: DataEnvelope(Unified), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const view = await graphEngine(db).view();
      const path = await aclInheritance(view, namedEdge(view, request.parsedQuery.params));
      const [nodes, edges] = await records(view, path, config.graphResultLimit);
      return reply.type(json).send(JSON.stringify({ data: unifiedGraph(nodes, edges, true) }));
    },
  }),
  ...(['edge-composition', 'relay-targets'] as const).map((path) => route({
    method: 'GET',
    url: `/api/v2/graphs/${path}`,
    config: { access, query: edgeQuery, cache: { reads: READS } },
    schema: {
      tags: ['graphs'],
      summary: path === 'edge-composition'
        ? 'The edges a post-processed edge is derived from (not computed yet: an empty graph for every edge)'
        : 'Relay targets of a coerce-and-relay edge (not computed yet: an empty graph)',
      response: { 200: DataEnvelope(Unified), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request, reply) => {
      const view = await graphEngine(request.server.db).view();
      namedEdge(view, request.parsedQuery.params);
      return reply.type(json).send(JSON.stringify({ data: { nodes: {}, edges: [] } }));
    },
  })),
];
