/**
 * GET /api/v2/search (ranked name / objectid search, reference §4.1) and GET /api/v2/graph-search
 * (exact or prefix matches as a flat graph map of nodes, §4.2).
 */
import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/create-db.ts';
import { checkGraphLimit } from '../../graph/answers/limits.ts';
import { flatGraph, displayName } from '../../graph/answers/flat-graph.ts';
import { graphEngine, tagKind } from '../../graph/engine/index.ts';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { badRequest, Messages } from '../../http/errors.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { graphSearchIds, searchNodes, type KindFilter } from './search.repository.ts';

const READS = ['nodes', 'edges', 'asset_group_tags', 'asset_group_tag_members'] as const;
const KIND = /^[A-Za-z0-9_]{1,200}$/;
const json = 'application/json; charset=utf-8';

const searchQuery = defineQuery({
  paging: { defaultLimit: 10 },
  params: {
    q: { type: 'string', description: 'text to find in names and objectids (case-insensitive): exact, then prefix, then substring (3+ characters) matches' },
    type: { type: 'string[]', description: 'only nodes of these kinds (repeatable), e.g. User, Group, AZUser, Tag_Tier_Zero' },
  },
});

const graphSearchQuery = defineQuery({
  params: {
    query: { type: 'string', description: 'name or objectid (case-insensitive)' },
    type: { type: 'string', enum: ['fuzzy', 'exact'], default: 'fuzzy', description: 'exact: equal name or objectid; fuzzy: starting with it' },
  },
});

const Hit = Type.Object({
  objectid: Type.String(), type: Type.String({ description: 'primary kind' }), name: Type.String(),
  distinguishedname: Type.String(), system_tags: Type.String(),
});

/** The type filter: every value a kind the graph knows (stored or a tag's), else 400. */
async function kindFilter(db: Db, types: string[]): Promise<KindFilter | null> {
  if (types.length === 0) return null;
  const view = await graphEngine(db).view();
  const known = new Set(view.allKinds());
  const tags = await db.kysely.selectFrom('asset_group_tags').select(['id', 'name']).execute();
  const filter: KindFilter = { kinds: [], tagIds: [] };
  for (const t of types) {
    if (!KIND.test(t) || !known.has(t)) throw badRequest(Messages.malformedParam('type'));
    const tag = tags.find((g) => tagKind(g.name) === t);
    if (tag) filter.tagIds.push(Number(tag.id));
    else filter.kinds.push(t);
  }
  return filter;
}

function systemTags(view: { isTierZero(id: number): boolean; isOwned(id: number): boolean }, id: number, props: Record<string, unknown>): string {
  const tags = typeof props.system_tags === 'string' && props.system_tags !== '' ? props.system_tags.split(' ') : [];
  if (view.isTierZero(id) && !tags.includes('admin_tier_0')) tags.push('admin_tier_0');
  if (view.isOwned(id) && !tags.includes('owned')) tags.push('owned');
  return tags.join(' ');
}

export const searchRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/search',
    config: { access: { permissions: ['graphdb/Read'] }, query: searchQuery, cache: { reads: READS } },
    schema: {
      tags: ['search'], summary: 'Find nodes by name or objectid: exact matches, then prefixes (name, then objectid), then substrings',
      response: { 200: DataEnvelope(Type.Array(Hit)), ...errorResponses(400, 401, 403) },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const { skip, limit, params } = request.parsedQuery;
      const q = params.q as string | undefined;
      if (!q) throw badRequest(Messages.malformedParam('q'));
      const filter = await kindFilter(db, params.type as string[]);
      const size = limit === 0 ? config.graphResultLimit + 1 : limit;
      const rows = (await searchNodes(db, q, filter, skip + size)).slice(skip);
      checkGraphLimit(rows.length, config.graphResultLimit);
      const view = await graphEngine(db).view();
      const data = rows.map((r) => {
        const props = JSON.parse(r.properties) as Record<string, unknown>;
        return {
          objectid: r.objectid, type: r.kind, name: displayName({ name: r.name, objectid: r.objectid, properties: props }),
          distinguishedname: typeof props.distinguishedname === 'string' ? props.distinguishedname : '',
          system_tags: systemTags(view, r.id, props),
        };
      });
      return reply.type(json).send(JSON.stringify({ data }));
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/graph-search',
    config: { access: { permissions: ['graphdb/Read'] }, query: graphSearchQuery, cache: { reads: READS } },
    schema: {
      tags: ['search'], summary: 'Nodes whose name or objectid equals (exact) or starts with (fuzzy) the query, as a flat graph map',
      response: { 200: DataEnvelope(Type.Record(Type.String(), Type.Unknown())), ...errorResponses(400, 401, 403) },
    },
    handler: async (request, reply) => {
      const { db, config } = request.server;
      const { query, type } = request.parsedQuery.params as { query?: string; type: string };
      if (!query) throw badRequest(Messages.malformedParam('query'));
      const ids = await graphSearchIds(db, query, type === 'exact', config.graphResultLimit);
      checkGraphLimit(ids.length, config.graphResultLimit);
      const view = await graphEngine(db).view();
      const nodes = await view.nodes(ids, { properties: true });
      return reply.type(json).send(JSON.stringify({ data: flatGraph(nodes, []) }));
    },
  }),
];
