import type { Db } from '../../db/create-db.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { nowMicros } from '../../db/time.ts';
import { revokeSessions } from '../../auth/sessions.ts';
import { ApiError, badRequest, conflict, notFound } from '../../http/errors.ts';
import { roleExists } from './sso-providers.repository.ts';
import { SSO_TYPE, normaliseConfig, slugFor, toWireOidc, type CreateOidcBody, type SsoConfig } from './sso-providers.schema.ts';

export type UpdateOidcBody = Partial<CreateOidcBody>;

/**
 * PATCH of an OIDC provider, as BloodHound: only the members given change (a given `config` replaces
 * the auto-provisioning settings; disabled provisioning is stored as all-off), the slug follows the
 * name, and the provider's users are signed out (their sign-in settings changed). Validation and 409s
 * as create. Answers the OIDC row (spec 2.6 shape).
 */
export async function updateOidcProvider(db: Db, id: number, body: UpdateOidcBody) {
  const name = body.name?.trim();
  if (name !== undefined && !name) throw badRequest('name must not be empty');
  if (body.client_id !== undefined && !body.client_id.trim()) throw badRequest('client_id must not be empty');
  let config: SsoConfig | undefined;
  if (body.config !== undefined) {
    config = normaliseConfig(body.config);
    if (!config.auto_provision.enabled) config = normaliseConfig({});
  }
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      let q = trx.selectFrom('sso_providers').select(['id', 'type']).where('id', '=', id);
      if (db.dialect === 'postgres') q = q.forUpdate();
      const provider = await q.executeTakeFirst();
      if (!provider) throw notFound();
      if (provider.type !== SSO_TYPE.oidc) throw notFound(); // the route sends only OIDC providers here
      if (config?.auto_provision.enabled && !(await roleExists(trx, config.auto_provision.default_role_id))) {
        throw badRequest('role id is invalid');
      }
      const now = nowMicros();
      await trx.updateTable('sso_providers').set({
        updated_at: now,
        ...(name !== undefined ? { name, slug: slugFor(name) } : {}),
        ...(config ? { config: JSON.stringify(config) } : {}),
      }).where('id', '=', id).execute();
      const row = await trx.updateTable('oidc_providers').set({
        updated_at: now,
        ...(body.client_id !== undefined ? { client_id: body.client_id } : {}),
        ...(body.issuer !== undefined ? { issuer: body.issuer } : {}),
      }).where('sso_provider_id', '=', id).returningAll().executeTakeFirstOrThrow();
      const users = await trx.selectFrom('users').select('id').where('sso_provider_id', '=', id).execute();
      await revokeSessions(trx, { userIds: users.map((u) => u.id) });
      return toWireOidc(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict('sso provider name must be unique');
    throw err;
  }
}
