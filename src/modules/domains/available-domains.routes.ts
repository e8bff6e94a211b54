/**
 * GET /api/v2/available-domains (reference §4.6): the Domain and AZTenant nodes of the graph, as
 * BloodHound's environment selector lists them: `{type: "active-directory" | "azure", name, id,
 * collected}`. `collected` is the node's `collected` property (true for a domain or tenant a
 * collector described; false for one only named, e.g. by a trust). Filters `objectid`, `name`,
 * `collected` (eq / neq), `sort_by` `objectid` / `name`; ties (and the default order) by node id.
 * Few nodes are domains, so they are filtered and sorted here, in code-unit order on both databases.
 */
import { Type } from '@sinclair/typebox';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { defineQuery, type ParsedFilter, type SortTerm } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';

export const availableDomainsQuery = defineQuery({
  filters: {
    objectid: { kind: 'string', column: 'nodes.objectid', predicates: ['eq', 'neq'] },
    name: { kind: 'string', column: 'nodes.name', predicates: ['eq', 'neq'] },
    collected: { kind: 'boolean', column: 'nodes.properties' },
  },
  // Nominal columns: the list is sorted in code, by these wire names.
  sortable: { objectid: 'nodes.objectid', name: 'nodes.name' },
});

const EnvironmentSchema = Type.Object({
  type: Type.String({ enum: ['active-directory', 'azure'] }),
  name: Type.String({ description: 'the node name ("NO NAME" when it has none)' }),
  id: Type.String({ description: 'objectid: domain SID or tenant id' }),
  collected: Type.Boolean({ description: 'a collector described it (its `collected` property)' }),
});

interface Environment { type: 'active-directory' | 'azure'; name: string; id: string; collected: boolean; node: number }

const FIELD = { objectid: (e: Environment) => e.id, name: (e: Environment) => e.name, collected: (e: Environment) => e.collected };

function matches(e: Environment, f: ParsedFilter): boolean {
  const value = FIELD[f.name as keyof typeof FIELD](e);
  return f.predicate === 'eq' ? f.values.some((v) => v === value) : f.values.every((v) => v !== value);
}

function compare(sort: readonly SortTerm[]) {
  return (a: Environment, b: Environment) => {
    for (const t of sort) {
      const x = FIELD[t.name as 'objectid' | 'name'](a);
      const y = FIELD[t.name as 'objectid' | 'name'](b);
      if (x !== y) return (x < y ? -1 : 1) * (t.descending ? -1 : 1);
    }
    return a.node - b.node;
  };
}

export const availableDomainRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/available-domains',
    config: { access: { permissions: ['graphdb/Read'] }, query: availableDomainsQuery, cache: { reads: ['nodes'] } },
    schema: {
      tags: ['graph'], summary: 'Domains and Azure tenants in the graph (filters objectid, name, collected; sort_by objectid, name)',
      response: { 200: DataEnvelope(Type.Array(EnvironmentSchema)), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const rows = await request.server.db.kysely.selectFrom('nodes')
        .select(['id', 'objectid', 'kind', 'name', 'properties']).where('kind', 'in', ['Domain', 'AZTenant']).execute();
      const parsed = request.parsedQuery;
      const all = rows.map((r): Environment => {
        const props = JSON.parse(r.properties) as Record<string, unknown>;
        const name = r.name ?? (typeof props.name === 'string' ? props.name : '');
        return {
          type: r.kind === 'Domain' ? 'active-directory' : 'azure',
          name: name || 'NO NAME',
          id: r.objectid || 'NO OBJECT ID',
          collected: props.collected === true,
          node: Number(r.id),
        };
      });
      const found = all.filter((e) => parsed.filters.every((f) => matches(e, f))).sort(compare(parsed.sort));
      return { data: found.map(({ type, name, id, collected }) => ({ type, name, id, collected })) };
    },
  }),
];
