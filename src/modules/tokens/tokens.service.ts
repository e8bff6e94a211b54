import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import { generateTokenKey, sealTokenKey } from '../../auth/token-keys.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { HMAC_METHOD } from '../../client/signature.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { deleteToken, findToken, insertToken, userExists } from './tokens.repository.ts';
import { toWireToken, type CreateTokenBody } from './tokens.schema.ts';

type UserPrincipal = Extract<Principal, { kind: 'user' }>;

export const canManageUsers = (caller: UserPrincipal) => caller.permissions.has('auth/ManageUsers');

/** Creates a token for the caller, or (auth/ManageUsers) for another user. The key is shown once. */
export async function createToken(db: Db, config: Config, caller: UserPrincipal, body: CreateTokenBody) {
  const name = body.token_name.trim();
  if (!name) throw badRequest('token_name must not be empty');
  const userId = body.user_id ?? caller.user.id;
  if (userId !== caller.user.id) {
    if (!canManageUsers(caller)) throw forbidden();
    if (!(await userExists(db.kysely, userId))) throw notFound();
  }
  return issueToken(db, config, userId, name);
}

/** Creates a token for a user (no permission check: callers decide). Returns it with its key. */
export async function issueToken(db: Db, config: Config, userId: string, name: string) {
  const id = randomUUID();
  const key = generateTokenKey();
  const now = nowMicros();
  const row = {
    id, user_id: userId, name, key_sealed: await sealTokenKey(db, config, id, key), hmac_method: HMAC_METHOD,
    last_access: null, created_at: now, updated_at: now, deleted_at: null,
  };
  await insertToken(db.kysely, row);
  return toWireToken(row, key);
}

/** Deletes one's own token, or (auth/ManageUsers) anyone's. */
export async function removeToken(db: Db, caller: UserPrincipal, id: string): Promise<void> {
  const token = await findToken(db.kysely, id);
  if (!token) throw notFound();
  if (token.user_id !== caller.user.id && !canManageUsers(caller)) throw forbidden();
  await deleteToken(db.kysely, id);
}
