import type { Db } from '../../db/create-db.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { revokeSessions } from '../../auth/sessions.ts';
import type { Principal } from '../../auth/principal.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import { hydrateUsers } from '../users/users.repository.ts';
import {
  deleteProvider, deleteProviderWithoutUsers, insertOidcProvider, lockProvider, providerUsers, roleExists,
} from './sso-providers.repository.ts';
import { SSO_TYPE, normaliseConfig, slugFor, toWireOidc, type CreateOidcBody } from './sso-providers.schema.ts';

const NAME_TAKEN = 'sso provider name must be unique';

export async function createOidcProvider(db: Db, body: CreateOidcBody) {
  const name = body.name.trim();
  if (!name) throw badRequest('name must not be empty');
  if (!body.client_id.trim()) throw badRequest('client_id must not be empty');
  const config = normaliseConfig(body.config);
  const slug = slugFor(name);
  const input = { name, slug, type: SSO_TYPE.oidc, config, clientId: body.client_id, issuer: body.issuer };
  const checkRole = async (q: Db['kysely']) => {
    if (config.auto_provision.enabled && !(await roleExists(q, config.auto_provision.default_role_id))) {
      throw badRequest('role id is invalid');
    }
  };
  try {
    // A taken name or slug is the unique indexes' business (caught below): no read before the insert.
    // Roles are fixed (no API deletes one), so the check needs no transaction around the insert.
    const row = db.dialect === 'postgres'
      ? await checkRole(db.kysely).then(() => insertOidcProvider(db.kysely, db.dialect, input))
      : await db.kysely.transaction().execute(async (trx) => {
        await checkRole(trx);
        return insertOidcProvider(trx, db.dialect, input);
      });
    return toWireOidc(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(NAME_TAKEN); // name or slug taken (also by a concurrent create)
    throw err;
  }
}

/**
 * Deletes a provider: its users stay, lose the link and their sessions. Returns those users as they
 * were before the delete. One transaction (the caller's, when it runs in one: an audited change):
 * the provider row is locked first (PostgreSQL), so no user can be linked to it meanwhile; a provider
 * nobody signs in with (the usual case) then goes in one statement; otherwise its users are read,
 * unlinked and signed out, and it is deleted.
 */
export async function deleteSsoProvider(db: Db, caller: Principal, id: number) {
  // The caller's own provider exists (users.sso_provider_id references it), so this 409 can come first.
  if (caller.kind === 'user' && caller.user.sso_provider_id === id) {
    throw conflict('user may not delete their own SSO auth provider');
  }
  return db.kysely.transaction().execute(async (trx) => {
    if (!(await lockProvider(trx, id, db.dialect))) throw notFound();
    if (await deleteProviderWithoutUsers(trx, id)) return [];
    const { found, users } = await providerUsers(trx, id);
    if (!found) throw notFound();
    const affected = await hydrateUsers(trx, users);
    await revokeSessions(trx, { userIds: users.map((u) => u.id) });
    await deleteProvider(trx, id, users.length > 0);
    return affected;
  });
}
