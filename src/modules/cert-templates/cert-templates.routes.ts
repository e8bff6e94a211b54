import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/create-db.ts';
import { findNodeByObjectId } from '../../graph/store.repository.ts';
import type { NodeRow } from '../../graph/graph.tables.ts';
import { DataEnvelope, PageEnvelope, errorResponses } from '../../http/envelope.ts';
import { notFound } from '../../http/errors.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import type { ControllerRow } from './controllers.repository.ts';
import { graphEngine } from '../../graph/engine/index.ts';
import { ENTITY_TYPES } from '../entities/entities.table.ts';
import { relatedGraph } from '../entities/entities.service.ts';
import { keptSortedControllers, sortedControllers } from './controllers.service.ts';
import { JSON_TYPE } from '../../http/json-body.ts';
import { wrapJoined } from '../../http/kept-bytes.ts';
import { VersionedCache } from '../../http/bounded-cache.ts';

type ObjectIdParams = { Params: { object_id: string } };
const params = Type.Object({ object_id: Type.String({ minLength: 1, maxLength: 1000, description: 'objectid of the certificate template' }) });

export const controllersQuery = defineQuery({
  // The columns are nominal: the list is sorted in code (controllers.service.ts), by these wire names.
  sortable: { name: 'n.name', objectid: 'n.objectid', label: 'n.kind' },
  defaultSort: [{ column: 'name' }, { column: 'objectid' }],
  paging: { defaultLimit: 10 },
  params: { type: { type: 'string', enum: ['list', 'graph'], default: 'list', description: 'list (paged) or graph (everything)' } },
});

const ControllerSchema = Type.Object({
  objectID: Type.String(),
  name: Type.String(),
  label: Type.String({ description: 'primary kind' }),
  kinds: Type.Array(Type.String()),
});
/** BloodHound's flat graph map (reference §2.1): node entries keyed by node id, edge entries keyed `rel_<edge id>`. */
const FlatGraphSchema = Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }), {
  description: 'type=graph: node entries keyed by graph node id ({color, data, border, fontIcon, label, size}), edge entries keyed rel_<edge id> ({color, data?, end2, id1, id2, label})',
});

/** The controllers traversal of the entity table's certtemplates row (the same set as the list, over the graph engine). */
const controllersTraversal = ENTITY_TYPES.find((t) => t.path === 'certtemplates')!.lists.find((l) => l.path === 'controllers')!.traversal;

/** Templates by the objectid asked (or null: none), kept while `nodes` is unchanged (src/db/data-versions.ts). */
const templatesKept = new WeakMap<Db, VersionedCache<Readonly<NodeRow> | null>>();
const NODES = ['nodes'] as const;

function templateCache(db: Db): VersionedCache<Readonly<NodeRow> | null> {
  let kept = templatesKept.get(db);
  if (!kept) templatesKept.set(db, (kept = new VersionedCache<Readonly<NodeRow> | null>(db.versions, 4 * 1024 * 1024, (n) => 256 + (n?.properties.length ?? 0))));
  return kept;
}

/** The template when it is kept (no statement, no promise); undefined when it is not known yet. 404 unless a CertTemplate. */
function keptTemplate(db: Db, objectId: string): NodeRow | undefined {
  const node = templateCache(db).get(objectId, NODES);
  if (node === undefined) return undefined;
  if (!node || node.kind !== 'CertTemplate') throw notFound();
  return node;
}

/** By objectid as given, then upper-cased (AD ids are stored upper-case); 404 unless a CertTemplate. */
async function requireTemplate(db: Db, objectId: string): Promise<NodeRow> {
  const kept = templateCache(db);
  let node = kept.get(objectId, NODES);
  if (node === undefined) {
    const keep = kept.prepare(objectId, NODES);
    node = Object.freeze((await findNodeByObjectId(db.kysely, objectId))
      ?? (objectId.toUpperCase() !== objectId ? await findNodeByObjectId(db.kysely, objectId.toUpperCase()) : undefined) ?? null);
    keep(node);
  }
  if (!node || node.kind !== 'CertTemplate') throw notFound();
  return node;
}

const parseKinds = (text: string): string[] => JSON.parse(text) as string[];
const toEntry = (r: ControllerRow) => ({ objectID: r.objectid, name: r.name, label: r.kind, kinds: parseKinds(r.kinds) });
/** A controller's JSON, made once per kept row (the rows live as long as their list: controllers.service.ts). */
const entryJson = new WeakMap<ControllerRow, string>();
function entryText(r: ControllerRow): string {
  let text = entryJson.get(r);
  if (text === undefined) entryJson.set(r, (text = JSON.stringify(toEntry(r))));
  return text;
}

/**
 * Each row's text of a sorted list, in its order, made once per list (the lists are kept: controllers.service.ts): a
 * page is then one slice and one join, not a lookup per row.
 */
const listTexts = new WeakMap<ControllerRow[], string[]>();
function textsOf(rows: ControllerRow[]): string[] {
  let texts = listTexts.get(rows);
  if (texts === undefined) listTexts.set(rows, (texts = rows.map(entryText)));
  return texts;
}

/** As JSON.stringify({ count, skip, limit, data: page.map(toEntry) }), from each row's kept text. */
function controllersPage(rows: ControllerRow[], skip: number, limit: number): string {
  const page = textsOf(rows).slice(skip, limit === 0 ? undefined : skip + limit);
  return wrapJoined(`{"count":${rows.length},"skip":${skip},"limit":${limit},"data":[`, page, ']}');
}

async function controllersAnswer(request: FastifyRequest<ObjectIdParams>, reply: FastifyReply) {
  const { db, config } = request.server;
  const { skip, limit, sort, params: { type } } = request.parsedQuery;
  const node = await requireTemplate(db, request.params.object_id);
  reply.type(JSON_TYPE);
  if (type === 'graph') {
    // Bare, as BloodHound answers an entity's related list as a graph.
    const view = await graphEngine(db).view();
    const id = Number(node.id);
    return reply.send(JSON.stringify(await relatedGraph(view, id, await controllersTraversal({ view, db, id }), config.graphResultLimit)));
  }
  return reply.send(controllersPage(await sortedControllers(db, node.id, sort), skip, limit));
}

export const certTemplateRoutes = [
  route<ObjectIdParams>({
    method: 'GET',
    url: '/api/v2/certtemplates/:object_id',
    config: { access: { permissions: ['graphdb/Read'] }, cache: { reads: ['nodes', 'edges'] } },
    schema: {
      tags: ['certtemplates'], summary: 'A certificate template: its properties and how many principals control it', params,
      response: {
        200: DataEnvelope(Type.Object({
          kind: Type.String(), kinds: Type.Array(Type.String()),
          props: Type.Object({}, { additionalProperties: true }), controllers: Type.Integer(),
        })),
        ...errorResponses(401, 403, 404),
      },
    },
    handler: async (request) => {
      const { db } = request.server;
      const node = await requireTemplate(db, request.params.object_id);
      const props = { ...JSON.parse(node.properties), objectid: node.objectid, name: node.name ?? node.objectid };
      const controllers = (await sortedControllers(db, node.id, controllersQuery.defaultSort)).length;
      return { data: { kind: node.kind, kinds: parseKinds(node.kinds), props, controllers } };
    },
  }),
  route<ObjectIdParams>({
    method: 'GET',
    url: '/api/v2/certtemplates/:object_id/controllers',
    config: { access: { permissions: ['graphdb/Read'] }, query: controllersQuery, cache: { reads: ['nodes', 'edges'] } },
    schema: {
      tags: ['certtemplates'],
      summary: 'Principals controlling a certificate template (direct control edges + transitive group members)',
      params,
      response: {
        200: Type.Union([PageEnvelope(Type.Array(ControllerSchema)), FlatGraphSchema]),
        ...errorResponses(400, 401, 403, 404),
      },
    },
    handler: (request, reply) => {
      // A list page of a kept template's kept controllers is answered here, synchronously (no promise); else read.
      const { db } = request.server;
      const { skip, limit, sort, params: { type } } = request.parsedQuery;
      const node = type === 'graph' ? undefined : keptTemplate(db, request.params.object_id);
      const rows = node === undefined ? undefined : keptSortedControllers(db, node.id, sort);
      if (rows === undefined) return controllersAnswer(request, reply);
      reply.type(JSON_TYPE).send(controllersPage(rows, skip, limit));
      return undefined; // answered: not `reply`, which Fastify would send again
    },
  }),
];
