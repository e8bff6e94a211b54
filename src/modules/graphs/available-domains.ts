/**
 * GET /api/v2/available-domains (reference §4.6): the Domain and AZTenant nodes of the graph, with
 * whether they were collected (the `collected` property SharpHound / AzureHound set; a domain known
 * only from a trust is not). bhcli's `stats`, `audit` and `--domain` options start here.
 */
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { applyFilters, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';

const domainsQuery = defineQuery({
  filters: {
    objectid: { kind: 'string', column: 'd.id', predicates: ['eq', 'neq'] },
    name: { kind: 'string', column: 'd.name', predicates: ['eq', 'neq'] },
    collected: { kind: 'boolean', column: 'd.collected' },
  },
  sortable: { objectid: 'd.id', name: 'd.name' },
});

const Domain = Type.Object({
  type: Type.Union([Type.Literal('active-directory'), Type.Literal('azure')]),
  name: Type.String(), id: Type.String(), collected: Type.Boolean(),
});

export const availableDomainsRoute = route({
  method: 'GET',
  url: '/api/v2/available-domains',
  config: { access: { permissions: ['graphdb/Read'] }, query: domainsQuery, cache: { reads: ['nodes'] } },
  schema: {
    tags: ['graphs'],
    summary: 'Domains and Azure tenants in the graph (filters objectid, name, collected; sort_by objectid or name)',
    response: { 200: DataEnvelope(Type.Array(Domain)), ...errorResponses(400, 401, 403) },
  },
  handler: async (request) => {
    const { db } = request.server;
    const pg = db.dialect === 'postgres';
    const collected = pg
      ? sql<number>`case when (properties::jsonb ->> 'collected') = 'true' then 1 else 0 end`
      : sql<number>`case when json_type(properties, '$.collected') = 'true' then 1 else 0 end`;
    const name = pg ? sql<string>`coalesce(properties::jsonb ->> 'name', name, 'NO NAME')` : sql<string>`coalesce(json_extract(properties, '$.name'), name, 'NO NAME')`;
    const domains = db.kysely.selectFrom('nodes')
      .select([sql<string>`objectid`.as('id'), name.as('name'), collected.as('collected'), sql<number>`case when kinds like '%"AZTenant"%' then 1 else 0 end`.as('azure')])
      .where((eb) => eb.or([eb('kinds', 'like', '%"Domain"%'), eb('kinds', 'like', '%"AZTenant"%')]));
    const base = applyFilters(db.kysely.selectFrom(domains.as('d')), domainsQuery, request.parsedQuery);
    const rows = await applySort(base.selectAll('d'), domainsQuery, request.parsedQuery).execute();
    return {
      data: rows.map((r) => ({
        type: Number(r.azure) === 1 ? 'azure' as const : 'active-directory' as const,
        name: r.name, id: r.id || 'NO OBJECT ID', collected: Number(r.collected) === 1,
      })),
    };
  },
});
