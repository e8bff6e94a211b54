import type { Db } from '../../db/create-db.ts';
import type { UserRow } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { nowMicros } from '../../db/time.ts';
import { DIGEST_METHOD, hashSecret, verifySecret } from '../../auth/password.ts';
import { revokeSessions } from '../../auth/sessions.ts';
import type { Principal } from '../../auth/principal.ts';
import { ApiError, badRequest, conflict, notFound } from '../../http/errors.ts';
import { hydrateUsers, insertUser, passwordLifetimeMicros } from './users.repository.ts';
import { passwordProblems } from './password-policy.ts';

type UserCaller = Extract<Principal, { kind: 'user' }>;
type Q = Db['kysely'];

/** The members BloodHound's user create / update bodies carry (its JS client sends these). */
export interface UserBody {
  first_name?: string;
  last_name?: string;
  email_address?: string;
  principal?: string;
  roles?: number[];
  sso_provider_id?: number | null;
  is_disabled?: boolean;
  secret?: string;
  needs_password_reset?: boolean;
}

/** A digest prepared outside the transaction (scrypt is slow). */
export interface PreparedSecret { digest: string; expiresAt: number }

export async function prepareSecret(db: Db, secret: string, needsReset: boolean | undefined): Promise<PreparedSecret> {
  const problems = passwordProblems(secret);
  if (problems.length) throw badRequest(problems);
  const expiresAt = needsReset ? 0 : nowMicros() + (await passwordLifetimeMicros(db.kysely));
  return { digest: await hashSecret(secret), expiresAt };
}

async function checkRoles(db: Q, roles: number[] | undefined): Promise<number[] | undefined> {
  if (roles === undefined) return undefined;
  if (roles.length > 1) throw badRequest('a user can only have one role');
  if (roles.length === 0) return [];
  const found = await db.selectFrom('roles').select('id').where('id', 'in', roles).execute();
  if (found.length !== roles.length) throw badRequest('role id is invalid');
  return roles;
}

async function checkProvider(db: Q, id: number | null | undefined) {
  if (id === null || id === undefined) return null;
  const provider = await db.selectFrom('sso_providers').select(['id', 'config']).where('id', '=', id).executeTakeFirst();
  if (!provider) throw badRequest('sso provider id is invalid');
  return provider;
}

function uniqueConflict(err: unknown): never {
  if (isUniqueViolation(err)) {
    const text = `${(err as Error).message} ${(err as { constraint?: string }).constraint ?? ''}`;
    throw conflict(/email/i.test(text) ? 'email must be unique' : 'principal name must be unique');
  }
  throw err;
}

const blankToNull = (v: string | undefined) => (v === undefined || v === '' ? null : v);

export async function createUserFromApi(db: Db, body: UserBody, secret: PreparedSecret | null, eulaAccepted: boolean) {
  const principal = body.principal?.trim() ?? '';
  if (!principal) throw badRequest('principal must not be empty');
  try {
    return await db.kysely.transaction().execute(async (trx) => {
      const roles = (await checkRoles(trx, body.roles ?? [])) ?? [];
      const provider = await checkProvider(trx, body.sso_provider_id);
      const user = await insertUser(trx, {
        principalName: principal,
        email: blankToNull(body.email_address),
        firstName: blankToNull(body.first_name),
        lastName: blankToNull(body.last_name),
        ssoProviderId: provider?.id ?? null,
        roleName: '',
      }, roles[0] ?? null);
      await trx.updateTable('users').set({ eula_accepted: eulaAccepted ? 1 : 0 }).where('id', '=', user.id).execute();
      if (secret) await storeSecret(trx, user.id, secret);
      return (await hydrateUsers(trx, [{ ...user, eula_accepted: eulaAccepted ? 1 : 0 }]))[0];
    });
  } catch (err) {
    uniqueConflict(err);
  }
}

async function storeSecret(db: Q, userId: string, secret: PreparedSecret): Promise<void> {
  const now = nowMicros();
  const values = { digest: secret.digest, digest_method: DIGEST_METHOD, expires_at: secret.expiresAt, updated_at: now };
  await db.insertInto('auth_secrets')
    .values({ user_id: userId, ...values, totp_activated: 0, created_at: now, deleted_at: null })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute();
}

async function findUser(db: Q, id: string): Promise<UserRow> {
  const user = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  if (!user) throw notFound();
  return user;
}

async function roleIdsOf(db: Q, userId: string): Promise<number[]> {
  return (await db.selectFrom('users_roles').select('role_id').where('user_id', '=', userId).orderBy('role_id').execute()).map((r) => r.role_id);
}

const sameIds = (a: number[], b: number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * PATCH as BloodHound: non-empty strings change, `is_disabled` when given (disabling ends the user's
 * sessions), `roles` when given; the SSO link is what the body says (absent or null = no provider,
 * as BloodHound: its UI omits the member to unlink). Linking a user to a provider removes their password.
 */
export async function updateUserFromApi(db: Db, caller: UserCaller, id: string, body: UserBody): Promise<void> {
  try {
    await db.kysely.transaction().execute(async (trx) => {
      const user = await findUser(trx, id);
      const roles = await checkRoles(trx, body.roles);
      const provider = await checkProvider(trx, body.sso_provider_id);
      const self = user.id === caller.user.id;
      const disabled = body.is_disabled ?? user.is_disabled === 1;
      if (self && disabled) throw badRequest('user attempted to disable themselves');
      const currentRoles = await roleIdsOf(trx, user.id);
      const ssoProviderId = provider?.id ?? null;
      if (self && roles !== undefined && !sameIds(roles, currentRoles)) throw badRequest('user attempted to change own role');
      if (self && ssoProviderId !== user.sso_provider_id) throw badRequest('user attempted to change own SSO Provider');
      const provisioned = provider && (JSON.parse(provider.config) as { auto_provision?: { role_provision?: boolean } }).auto_provision?.role_provision;
      if (provisioned && roles !== undefined && !sameIds(roles, currentRoles)) {
        throw badRequest('user attempted to change a role for a SSO Provider with role provision enabled');
      }
      const set: Partial<UserRow> = { updated_at: nowMicros(), is_disabled: disabled ? 1 : 0, sso_provider_id: ssoProviderId };
      if (body.first_name) set.first_name = body.first_name;
      if (body.last_name) set.last_name = body.last_name;
      if (body.email_address) set.email_address = body.email_address;
      if (body.principal?.trim()) set.principal_name = body.principal.trim();
      await trx.updateTable('users').set(set).where('id', '=', user.id).execute();
      if (roles !== undefined && !sameIds(roles, currentRoles)) {
        await trx.deleteFrom('users_roles').where('user_id', '=', user.id).execute();
        if (roles.length) await trx.insertInto('users_roles').values({ user_id: user.id, role_id: roles[0] }).execute();
      }
      if (ssoProviderId !== null && ssoProviderId !== user.sso_provider_id) {
        await trx.deleteFrom('auth_secrets').where('user_id', '=', user.id).execute();
      }
      if (disabled && user.is_disabled !== 1) await revokeSessions(trx, { userIds: [user.id] });
    });
  } catch (err) {
    uniqueConflict(err);
  }
}

export async function deleteUserFromApi(db: Db, caller: UserCaller, id: string): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const user = await findUser(trx, id);
    if (user.id === caller.user.id) throw badRequest('User cannot delete themselves');
    await revokeSessions(trx, { userIds: [user.id] });
    await trx.deleteFrom('users').where('id', '=', user.id).execute();
  });
}

/** Self needs auth/ManageSelf (the route's guard), another user auth/ManageUsers. */
export function checkSecretAccess(caller: UserCaller, targetId: string): void {
  if (targetId !== caller.user.id && !caller.permissions.has('auth/ManageUsers')) throw new ApiError(403, 'not authorized');
}

/** The target and its secret, checked as BloodHound before a password change (no write). */
export async function checkPutSecret(db: Db, caller: UserCaller, id: string, currentSecret: string | undefined): Promise<void> {
  const user = await findUser(db.kysely, id);
  if (user.sso_provider_id !== null) throw badRequest('Invalid operation, user is SSO');
  if (user.id !== caller.user.id) return;
  const stored = await db.kysely.selectFrom('auth_secrets').select('digest').where('user_id', '=', id).executeTakeFirst();
  if (!stored) throw badRequest('user does not have a secret auth provider registered');
  if (!(await verifySecret(currentSecret ?? '', stored.digest))) throw new ApiError(403, 'Invalid current password');
}

export async function putSecret(db: Db, id: string, secret: PreparedSecret): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const user = await findUser(trx, id);
    if (user.sso_provider_id !== null) throw badRequest('Invalid operation, user is SSO'); // linked meanwhile
    await storeSecret(trx, id, secret);
  });
}

/** Expires the password now: the next login must set a new one (BloodHound: expires_at = zero time). */
export async function expireSecret(db: Db, id: string): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const user = await findUser(trx, id);
    if (user.sso_provider_id !== null) throw conflict('user has SAML auth enabled');
    const done = await trx.updateTable('auth_secrets').set({ expires_at: 0, updated_at: nowMicros() }).where('user_id', '=', id).executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw badRequest('user does not have a secret auth provider registered');
  });
}

export async function acceptEula(db: Db, userId: string): Promise<void> {
  await db.kysely.updateTable('users').set({ eula_accepted: 1, updated_at: nowMicros() }).where('id', '=', userId).execute();
}
