import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuthSecretRow, Database, UserRow } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import { DIGEST_METHOD, hashSecret } from '../../auth/password.ts';
import { passwordExpirationMicros } from '../app-config/parameters.ts';
import { toWireUser, type RoleWithPermissions, type WireUser } from './users.schema.ts';

type Q = Kysely<Database>;

/** Passwords expire after a year unless changed (BloodHound's default lifetime is similar). */
const SECRET_LIFETIME_MICROS = 365 * 24 * 3600 * 1_000_000;

export interface NewUserInput {
  principalName: string;
  email: string | null;
  roleName: string;
  password?: string;
  /** The password works once: its first login must set a new one (expired, as BloodHound's needs_password_reset). */
  passwordExpired?: boolean;
  ssoProviderId?: number | null;
  firstName?: string | null;
  lastName?: string | null;
}

export async function findRoleByName(db: Q, name: string) {
  return db.selectFrom('roles').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function findUserByName(db: Q, principalName: string) {
  return db.selectFrom('users').selectAll().where('principal_name', '=', principalName).executeTakeFirst();
}

/** Login names a user by principal name (exact) or by e-mail address (any case), as BloodHound. */
export async function findUserForLogin(db: Q, name: string) {
  const byName = await findUserByName(db, name);
  if (byName) return byName;
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email_address']), '=', name.toLowerCase()))
    .orderBy('created_at')
    .executeTakeFirst();
}

export async function countUsers(db: Q): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Creates a user with one role (and a password when given), in the caller's transaction. */
export async function insertUser(db: Q, input: NewUserInput, roleId: number | null): Promise<UserRow> {
  const now = nowMicros();
  const user: UserRow = {
    id: randomUUID(),
    principal_name: input.principalName,
    first_name: input.firstName ?? null,
    last_name: input.lastName ?? null,
    email_address: input.email,
    sso_provider_id: input.ssoProviderId ?? null,
    saml_provider_id: null,
    last_login: null,
    is_disabled: 0,
    eula_accepted: 0,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await db.insertInto('users').values(user).execute();
  if (roleId !== null) await db.insertInto('users_roles').values({ user_id: user.id, role_id: roleId }).execute();
  if (input.password !== undefined) await setPassword(db, user.id, input.password, input.passwordExpired ? 0 : undefined);
  return user;
}

export async function setPassword(db: Q, userId: string, password: string, expiresAt?: number): Promise<void> {
  const now = nowMicros();
  const digest = await hashSecret(password);
  const expires = expiresAt ?? now + SECRET_LIFETIME_MICROS;
  await db
    .insertInto('auth_secrets')
    .values({
      user_id: userId, digest, digest_method: DIGEST_METHOD, expires_at: expires,
      totp_activated: 0, created_at: now, updated_at: now, deleted_at: null,
    })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ digest, digest_method: DIGEST_METHOD, expires_at: expires, updated_at: now }),
    )
    .execute();
}

/** How long a password set through the API lasts (BloodHound's `auth.password_expiration_window`, default P90D). */
export async function passwordLifetimeMicros(db: Q): Promise<number> {
  return passwordExpirationMicros(db);
}

export async function findAuthSecret(db: Q, userId: string) {
  return db.selectFrom('auth_secrets').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

export async function setDisabled(db: Q, userId: string, disabled: boolean): Promise<void> {
  await db.updateTable('users').set({ is_disabled: disabled ? 1 : 0, updated_at: nowMicros() }).where('id', '=', userId).execute();
}

export async function touchLastLogin(db: Q, userId: string, eulaAccepted?: boolean): Promise<void> {
  const now = nowMicros();
  const eula = eulaAccepted === undefined ? {} : { eula_accepted: (eulaAccepted ? 1 : 0) as 0 | 1 };
  await db.updateTable('users').set({ last_login: now, ...eula }).where('id', '=', userId).execute();
}

/** Users (as rows) with their roles, permissions and auth secrets, mapped to the wire shape. */
export async function hydrateUsers(db: Q, users: UserRow[]): Promise<WireUser[]> {
  if (users.length === 0) return [];
  const ids = users.map((u) => u.id);
  const links = await db.selectFrom('users_roles').selectAll().where('user_id', 'in', ids).execute();
  const roleIds = [...new Set(links.map((l) => l.role_id))];
  const roles = roleIds.length ? await db.selectFrom('roles').selectAll().where('id', 'in', roleIds).orderBy('id').execute() : [];
  const perms = roleIds.length
    ? await db
        .selectFrom('roles_permissions')
        .innerJoin('permissions', 'permissions.id', 'roles_permissions.permission_id')
        .selectAll('permissions')
        .select('roles_permissions.role_id')
        .where('roles_permissions.role_id', 'in', roleIds)
        .orderBy('permissions.id')
        .execute()
    : [];
  const secrets = await db.selectFrom('auth_secrets').selectAll().where('user_id', 'in', ids).execute();
  const roleMap = new Map<number, RoleWithPermissions>(
    roles.map((role) => [role.id, { role, permissions: perms.filter((p) => p.role_id === role.id).map(({ role_id: _r, ...p }) => p) }]),
  );
  const secretMap = new Map<string, AuthSecretRow>(secrets.map((s) => [s.user_id, s]));
  return users.map((user) =>
    toWireUser(
      user,
      links.filter((l) => l.user_id === user.id).map((l) => roleMap.get(l.role_id)!).sort((a, b) => a.role.id - b.role.id),
      secretMap.get(user.id),
    ),
  );
}
