import { Type, type Static } from '@sinclair/typebox';
import { CypherError } from '../../cypher/errors.ts';
import { runCypher } from '../../cypher/run.ts';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { route } from '../../http/route.ts';

const Body = Type.Object({
  query: Type.String({ description: 'Cypher text (read-only unless --cypher-mutations is on)' }),
  include_properties: Type.Optional(Type.Boolean({ description: 'add each node and edge\'s properties, and node_keys / edge_keys' })),
});

const Props = Type.Object({}, { additionalProperties: true });
const Node = Type.Object({
  label: Type.String(), kind: Type.String(), kinds: Type.Array(Type.String()), objectId: Type.String(),
  isTierZero: Type.Boolean(), isOwnedObject: Type.Boolean(), lastSeen: Type.String(), properties: Type.Optional(Props),
});
const Edge = Type.Object({
  source: Type.String(), target: Type.String(), label: Type.String(), kind: Type.String(), lastSeen: Type.String(),
  properties: Type.Optional(Props),
});
const Graph = Type.Object({
  node_keys: Type.Optional(Type.Array(Type.String())),
  edge_keys: Type.Optional(Type.Array(Type.String())),
  nodes: Type.Record(Type.String(), Node),
  edges: Type.Array(Edge),
  literals: Type.Optional(Type.Array(Type.Object({ key: Type.String(), value: Type.Unknown() }))),
});

export const MUTATION_DENIED = 'Permission denied: User may not modify the graph.';

export const cypherRoutes = [
  route<{ Body: Static<typeof Body> }>({
    method: 'POST',
    url: '/api/v2/graphs/cypher',
    config: {
      access: { permissions: ['graphdb/Read'] },
      // TODO(cypher): a mutating query (--cypher-mutations) changes the graph unaudited; run it through audited() as MutateGraph.
      audit: { exempt: 'reads the graph (mutations are off by default)' },
    },
    schema: {
      tags: ['cypher'],
      summary: 'Run a Cypher query (BloodHound\'s subset; see docs/cypher.md): the nodes, edges and scalar values it returns',
      body: Body,
      response: { 200: DataEnvelope(Graph), ...errorResponses(400, 401, 403, 404, 504) },
    },
    handler: async (request) => {
      const { db, config } = request.server;
      const { query, include_properties: includeProperties = false } = request.body;
      const principal = request.principal;
      const mayMutate = principal?.kind === 'user' && principal.permissions.has('graphdb/Mutate');
      try {
        const outcome = await runCypher(db, query, { includeProperties, mutations: config.cypherMutations, mayMutate, resultLimit: config.graphResultLimit });
        if (outcome === 'denied') throw forbidden(MUTATION_DENIED);
        if (outcome === 'empty') throw notFound();
        return { data: outcome };
      } catch (err) {
        if (err instanceof CypherError) throw badRequest(err.message);
        throw err;
      }
    },
  }),
];
