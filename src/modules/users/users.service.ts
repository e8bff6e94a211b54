import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import { generatePassword } from '../../auth/password.ts';
import { isRoleName, ROLE_NAMES } from '../../auth/permissions.ts';
import { issueSession, revokeSessions } from '../../auth/sessions.ts';
import { countUsers, findRoleByName, findUserByName, insertUser, setDisabled, setPassword, type NewUserInput } from './users.repository.ts';
import { isUniqueViolation } from '../../db/errors.ts';

export class UserInputError extends Error {}

export interface CreateUserOptions extends Omit<NewUserInput, 'ssoProviderId'> {
  /** Name of an existing SSO provider to link the user to. */
  ssoProviderName?: string;
}

export async function createUser(db: Db, input: CreateUserOptions) {
  if (!input.principalName.trim()) throw new UserInputError('user name must not be empty');
  if (!isRoleName(input.roleName)) {
    throw new UserInputError(`unknown role "${input.roleName}" (one of: ${ROLE_NAMES.join(', ')})`);
  }
  return db.kysely.transaction().execute(async (trx) => {
    if (await findUserByName(trx, input.principalName)) {
      throw new UserInputError(`a user named "${input.principalName}" already exists`);
    }
    const role = await findRoleByName(trx, input.roleName);
    if (!role) throw new UserInputError(`role "${input.roleName}" is missing from the database`);
    let ssoProviderId: number | null = null;
    if (input.ssoProviderName !== undefined) {
      const provider = await trx.selectFrom('sso_providers').select('id').where('name', '=', input.ssoProviderName).executeTakeFirst();
      if (!provider) throw new UserInputError(`no SSO provider named "${input.ssoProviderName}"`);
      ssoProviderId = provider.id;
    }
    return insertUser(trx, { ...input, ssoProviderId }, role.id);
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new UserInputError(`a user with the e-mail address "${input.email}" already exists`);
    throw err;
  });
}

export async function disableUser(db: Db, principalName: string): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    const user = await findUserByName(trx, principalName);
    if (!user) throw new UserInputError(`no user named "${principalName}"`);
    await setDisabled(trx, user.id, true);
    await revokeSessions(trx, { userIds: [user.id] });
  });
}

export async function enableUser(db: Db, principalName: string): Promise<void> {
  const user = await findUserByName(db.kysely, principalName);
  if (!user) throw new UserInputError(`no user named "${principalName}"`);
  await setDisabled(db.kysely, user.id, false);
}

/** Deletes a user; their sessions, password, API tokens and saved queries go with them. */
export async function deleteUserByName(db: Db, principalName: string): Promise<void> {
  const done = await db.kysely.deleteFrom('users').where('principal_name', '=', principalName).executeTakeFirst();
  if (Number(done.numDeletedRows) === 0) throw new UserInputError(`no user named "${principalName}"`);
}

/**
 * Gives a password user a new one-time password (expired: its login may only set a new one, as
 * BloodHound's needs_password_reset) and ends their sessions. SSO users have no password here.
 */
export async function resetPassword(db: Db, principalName: string): Promise<string> {
  const password = generatePassword();
  await db.kysely.transaction().execute(async (trx) => {
    const user = await findUserByName(trx, principalName);
    if (!user) throw new UserInputError(`no user named "${principalName}"`);
    if (user.sso_provider_id !== null) throw new UserInputError(`"${principalName}" signs in through an SSO provider and has no password`);
    await setPassword(trx, user.id, password, 0);
    await revokeSessions(trx, { userIds: [user.id] });
  });
  return password;
}

export interface Bootstrap {
  password: string;
  token: string;
}

/** On first start with no users: an `admin` Administrator with a one-time password and a token. */
export async function bootstrapAdmin(db: Db, config: Config): Promise<Bootstrap | null> {
  if ((await countUsers(db.kysely)) > 0) return null;
  const password = generatePassword();
  let user;
  try {
    user = await createUser(db, { principalName: 'admin', email: null, roleName: 'Administrator', password, passwordExpired: true });
  } catch (err) {
    if (err instanceof UserInputError) return null; // another instance won the race
    if ((await countUsers(db.kysely)) > 0) return null;
    throw err;
  }
  const { token } = await issueSession(db, config, { userId: user.id }, config.sessionTtlSeconds, 'bootstrap');
  return { password, token };
}
