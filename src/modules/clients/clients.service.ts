import type { Config } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { toRfc3339 } from '../../db/time.ts';
import { issueSession, revokeSessions } from '../../auth/sessions.ts';
import { badRequest, conflict, notFound } from '../../http/errors.ts';
import {
  clientNameTaken, deleteClient, findClient, flushCheckins, insertClient, updateClient,
} from './clients.repository.ts';
import { toWireClient, type CreateClientBody, type UpdateClientBody } from './clients.schema.ts';

export const NAME_TAKEN = 'client name must be unique';
/** Lifetime of a client credential (collectors run unattended). */
export const CLIENT_TOKEN_TTL_SECONDS = 365 * 24 * 3600;

function cleanName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest('name must not be empty');
  return trimmed;
}

async function uniquely<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(NAME_TAKEN);
    throw err;
  }
}

export async function createClient(db: Db, body: CreateClientBody) {
  const name = cleanName(body.name);
  return uniquely(() =>
    db.kysely.transaction().execute(async (trx) => {
      if (await clientNameTaken(trx, name)) throw conflict(NAME_TAKEN);
      return toWireClient(await insertClient(trx, { name, type: body.type, domainController: body.domain_controller }));
    }),
  );
}

export async function getClient(db: Db, id: string) {
  await flushCheckins(db.kysely);
  const row = await findClient(db.kysely, id);
  if (!row) throw notFound();
  return toWireClient(row);
}

export async function editClient(db: Db, id: string, body: UpdateClientBody) {
  const name = cleanName(body.name);
  return uniquely(() =>
    db.kysely.transaction().execute(async (trx) => {
      if (!(await findClient(trx, id))) throw notFound();
      if (await clientNameTaken(trx, name, id)) throw conflict(NAME_TAKEN);
      return toWireClient((await updateClient(trx, id, { name, domainController: body.domain_controller }))!);
    }),
  );
}

/** Deletes the client, its events and jobs, and ends its sessions, in one transaction. */
export async function removeClient(db: Db, id: string) {
  return db.kysely.transaction().execute(async (trx) => {
    const row = await findClient(trx, id);
    if (!row) throw notFound();
    await revokeSessions(trx, { clientId: id });
    await deleteClient(trx, id);
    return toWireClient(row);
  });
}

/**
 * Issues the client's credential. `replace` (the API's PUT) first revokes every earlier token of the
 * client; the CLI adds one without revoking.
 */
export async function issueClientToken(db: Db, config: Config, id: string, opts: { replace: boolean; ttlSeconds?: number }) {
  if (!(await findClient(db.kysely, id))) throw notFound();
  if (opts.replace) await revokeSessions(db.kysely, { clientId: id });
  const issued = await issueSession(db, config, { clientId: id }, opts.ttlSeconds ?? CLIENT_TOKEN_TTL_SECONDS, 'client-token');
  return { client_id: id, token: issued.token, expires_at: toRfc3339(issued.expiresAt) };
}
