import { Type, type Static } from '@sinclair/typebox';
import { DataEnvelope, errorResponses, recordFields, recordTimes } from '../../http/envelope.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import { nowMicros } from '../../db/time.ts';
import type { FeatureFlagTable, ParameterTable } from './app-config.tables.ts';
import { checkParameter, invalidParameter, WRITABLE_PARAMETERS } from './parameters.ts';

/** BloodHound's feature flags and application configuration (`app/ReadAppConfig`, `app/WriteAppConfig`). */
const FlagSchema = Type.Object({
  id: Type.Integer(), ...recordFields,
  key: Type.String(), name: Type.String(), description: Type.String(), enabled: Type.Boolean(), user_updatable: Type.Boolean(),
});
const ParameterSchema = Type.Object({
  id: Type.Integer(), ...recordFields,
  key: Type.String(), name: Type.String(), description: Type.String(), value: Type.Object({}, { additionalProperties: true }),
});
const ParameterBody = Type.Object({
  key: Type.String({ description: 'parameter key, e.g. auth.password_expiration_window' }),
  value: Type.Unknown({ description: 'the parameter\'s value object, e.g. {"duration": "P90D"}' }),
});

const toWireFlag = (f: FeatureFlagTable) => ({
  id: f.id, ...recordTimes(f), key: f.key, name: f.name, description: f.description, enabled: f.enabled === 1, user_updatable: f.user_updatable === 1,
});
const toWireParameter = (p: ParameterTable) => ({
  id: p.id, ...recordTimes(p), key: p.key, name: p.name, description: p.description, value: JSON.parse(p.value) as Record<string, unknown>,
});

const configQuery = defineQuery({ filters: { parameter: { kind: 'string', column: 'parameters.key', predicates: ['eq'] } } });
const Read = { permissions: ['app/ReadAppConfig' as const] };
const Write = { permissions: ['app/WriteAppConfig' as const] };

export const appConfigRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/features',
    config: { access: Read },
    schema: { tags: ['config'], summary: 'Feature flags (BloodHound\'s keys; enabled = what Scent does)', response: { 200: DataEnvelope(Type.Array(FlagSchema)), ...errorResponses(401, 403) } },
    handler: async (request) => {
      const rows = await request.server.db.kysely.selectFrom('feature_flags').selectAll().orderBy('id').execute();
      return { data: rows.map(toWireFlag) };
    },
  }),
  route<{ Params: { feature_id: number } }>({
    method: 'PUT',
    url: '/api/v2/features/:feature_id/toggle',
    config: { access: Write, audit: { action: 'ToggleEarlyAccessFeatureFlag' } },
    schema: {
      tags: ['config'], summary: 'Flip a user-updatable feature flag',
      params: Type.Object({ feature_id: Type.Integer({ format: 'int32' }) }),
      response: { 200: DataEnvelope(Type.Object({ enabled: Type.Boolean() })), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const id = request.params.feature_id;
      const enabled = await audited(request, async (db) => {
        const flag = await db.kysely.selectFrom('feature_flags').selectAll().where('id', '=', id).executeTakeFirst();
        if (!flag) throw notFound();
        auditNote(request, { fields: { key: flag.key } });
        if (flag.user_updatable !== 1) throw new ApiError(403, `Feature flag ${flag.key}(${flag.id}) is not user updatable.`);
        const next = flag.enabled === 1 ? 0 : 1;
        await db.kysely.updateTable('feature_flags').set({ enabled: next, updated_at: nowMicros() }).where('id', '=', id).execute();
        return next === 1;
      });
      return { data: { enabled } };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/config',
    config: { access: Read, query: configQuery },
    schema: { tags: ['config'], summary: 'Application parameters (`parameter=eq:<key>` for one)', response: { 200: DataEnvelope(Type.Array(ParameterSchema)), ...errorResponses(400, 401, 403) } },
    handler: async (request) => {
      const wanted = request.parsedQuery.filters.find((f) => f.name === 'parameter')?.values.map(String) ?? [];
      for (const key of wanted) if (!WRITABLE_PARAMETERS[key]) throw invalidParameter(key);
      let q = request.server.db.kysely.selectFrom('parameters').selectAll().orderBy('id');
      if (wanted.length) q = q.where('key', 'in', wanted);
      return { data: (await q.execute()).map(toWireParameter) };
    },
  }),
  route<{ Body: Static<typeof ParameterBody> }>({
    method: 'PUT',
    url: '/api/v2/config',
    config: { access: Write, audit: { action: 'UpdateParameter' } },
    schema: {
      tags: ['config'], summary: 'Set an application parameter (answers the request, as BloodHound)', body: ParameterBody,
      response: { 200: DataEnvelope(Type.Object({ key: Type.String(), value: Type.Object({}, { additionalProperties: true }) })), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const { key, value } = request.body;
      auditNote(request, { fields: { key, value } });
      checkParameter(key, value);
      await audited(request, (db) => db.kysely.updateTable('parameters')
        .set({ value: JSON.stringify(value), updated_at: nowMicros() }).where('key', '=', key).execute());
      return { data: { key, value: value as Record<string, unknown> } };
    },
  }),
];
