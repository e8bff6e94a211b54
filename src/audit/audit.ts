/**
 * The audit log as a mechanism routes declare (CONTRACT §2: every write route writes an entry in
 * the same transaction as its change).
 *
 * A route declares `config.audit`:
 *   { action: 'CreateClient' }       its requests are audited under that action (src/audit/actions.ts)
 *   { exempt: '<why>' }              a POST/PUT/PATCH/DELETE that changes nothing (a read-only query)
 * Start-up fails when a POST/PUT/PATCH/DELETE route declares neither; GET routes may declare an
 * action (the OIDC callback signs users in).
 *
 * Exactly ONE entry per request to an audited route:
 * - success: the handler runs its change through `audited(request, (db) => ...)`; the entry is
 *   inserted in the same transaction, after the change, and commits with it (or neither does);
 * - failure: any request that answers without a recorded success (4xx/5xx, a refused guard, a thrown
 *   change, whose transaction rolled back) gets a `failure` entry, written before the answer is sent,
 *   with the error messages in `fields.error`. A request refused by its guard (no principal) is
 *   recorded as BloodHound does, as `UnauthorizedAccessAttempt` with `fields.endpoint`.
 * BloodHound also writes an `intent` row before each change; Scent does not (its entry commits with
 * the change, so there is no window in which a change is made but not recorded).
 *
 * Fields: the path parameters, plus what the route notes with `auditNote(request, {...})` (before or
 * inside the change; never secrets). The actor is the authenticated user or collection client
 * (a login notes the user it is for).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Db } from '../db/create-db.ts';
import type { Database } from '../db/database.ts';
import { joinTransaction } from '../db/joined-transaction.ts';
import { nowMicros } from '../db/time.ts';
import { AUDIT_ACTIONS, type AuditAction } from './actions.ts';

export type AuditDeclaration = { action: AuditAction } | { exempt: string };
export type AuditData = Record<string, unknown>;
export interface Actor {
  id: string;
  name: string;
  email: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    audit?: AuditDeclaration;
  }
  interface FastifyRequest {
    auditState: AuditState | null;
  }
}

interface AuditState {
  fields: AuditData;
  actor?: Actor;
  recorded: boolean;
  /** Why the request failed when it answers without an error status (e.g. an OIDC redirect). */
  failure?: string;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function stateOf(request: FastifyRequest): AuditState {
  return (request.auditState ??= { fields: {}, recorded: false });
}

function actionOf(request: FastifyRequest): AuditAction | null {
  const decl = request.routeOptions.config?.audit;
  return decl && 'action' in decl ? decl.action : null;
}

/** Adds fields (and the actor, for routes that sign someone in) to this request's entry. */
export function auditNote(request: FastifyRequest, note: { fields?: AuditData; actor?: Actor; failure?: string }): void {
  const state = stateOf(request);
  Object.assign(state.fields, note.fields);
  if (note.actor) state.actor = note.actor;
  if (note.failure !== undefined) state.failure = note.failure;
}

/**
 * Runs `change` in one transaction with this request's success entry; returns its result. `change`
 * gets a Db whose nested transactions join this one (src/db/joined-transaction.ts): use only it.
 */
export async function audited<T>(request: FastifyRequest, change: (db: Db) => Promise<T>): Promise<T> {
  const action = actionOf(request);
  if (!action) throw new Error(`${request.method} ${request.routeOptions.url}: audited() on a route that declares no audit action`);
  const state = stateOf(request);
  if (state.recorded) throw new Error(`${request.method} ${request.routeOptions.url}: one audited change per request`);
  const root = request.server.db;
  const result = await root.kysely.transaction().execute(async (trx) => {
    const value = await change(joinTransaction(root, trx));
    await insertEntry(trx, await entryFor(trx, request, action, 'success'));
    return value;
  });
  state.recorded = true;
  return result;
}

async function entryFor(db: Kysely<Database>, request: FastifyRequest, action: AuditAction, status: 'success' | 'failure') {
  const state = stateOf(request);
  const actor = state.actor ?? (await principalActor(db, request));
  return {
    created_at: nowMicros(),
    actor_id: actor?.id ?? '',
    actor_name: actor?.name ?? '',
    actor_email: actor?.email ?? '',
    action,
    fields: JSON.stringify({ ...(request.params as AuditData | undefined), ...state.fields }),
    request_id: String(request.id),
    source_ip_address: request.ip ?? '',
    status,
    commit_id: randomUUID(),
  };
}

async function principalActor(db: Kysely<Database>, request: FastifyRequest): Promise<Actor | null> {
  const p = request.principal ?? request.identity;
  if (!p) return null;
  if (p.kind === 'user') return { id: p.user.id, name: p.user.principal_name, email: p.user.email_address };
  const client = await db.selectFrom('clients').select('name').where('id', '=', p.clientId).executeTakeFirst();
  return { id: p.clientId, name: client?.name ?? '', email: null };
}

async function insertEntry(db: Kysely<Database>, entry: Awaited<ReturnType<typeof entryFor>>): Promise<void> {
  await db.insertInto('audit_logs').values(entry).execute();
}

/** The error messages of an answer in the contract's envelope (empty when it is not one). */
function errorMessages(payload: unknown): string[] {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return [];
  try {
    const body = JSON.parse(String(payload)) as { errors?: Array<{ message?: unknown }> };
    return Array.isArray(body.errors) ? body.errors.map((e) => String(e.message)) : [];
  } catch {
    return [];
  }
}

/** Declaration checks at start-up, and the failure entry of requests that recorded no success. */
export function registerAudit(app: FastifyInstance): void {
  app.decorateRequest('auditState', null);
  app.addHook('onRoute', (options: RouteOptions) => {
    const decl = options.config?.audit;
    const methods = (Array.isArray(options.method) ? options.method : [options.method]).map(String);
    if (!decl && methods.some((m) => WRITE_METHODS.has(m))) {
      throw new Error(`route ${methods.join(',')} ${options.url} declares no audit (an action, or exempt with a reason)`);
    }
    if (decl && 'action' in decl && !AUDIT_ACTIONS.includes(decl.action)) {
      throw new Error(`route ${options.url}: unknown audit action ${decl.action}`);
    }
    if (decl && 'exempt' in decl && !decl.exempt.trim()) throw new Error(`route ${options.url}: audit exemption without a reason`);
  });

  // Callback-style: an answer with nothing to record (every read) costs no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const action = actionOf(request);
    if (!action || request.auditState?.recorded) return done(null, payload);
    recordFailure(request, reply, payload, action).then(() => done(null, payload), (err: Error) => done(err));
  });
}

/** The failure entry of a request that recorded no success (its answer is an error, or it was refused). */
async function recordFailure(request: FastifyRequest, reply: FastifyReply, payload: unknown, action: AuditAction): Promise<void> {
  const state = stateOf(request);
  const messages = errorMessages(payload);
  if (state.failure !== undefined) messages.unshift(state.failure);
  if (messages.length === 0) {
    request.log.error(`${request.method} ${request.routeOptions.url} answered ${reply.statusCode} without recording its audit entry`);
    messages.push(`answered ${reply.statusCode} without recording the change`);
  }
  // Refused at the door: no valid credentials, or the route's guard did not admit the caller.
  const guarded = !('public' in (request.routeOptions.config?.access ?? {}));
  const refused = guarded && (reply.statusCode === 401 || request.principal === null);
  try {
    const db = request.server.db.kysely;
    const entry = await entryFor(db, request, refused ? 'UnauthorizedAccessAttempt' : action, 'failure');
    const fields = refused ? { endpoint: `${request.method} ${request.url.split('?')[0]}` } : JSON.parse(entry.fields);
    await insertEntry(db, { ...entry, fields: JSON.stringify({ ...fields, error: messages.join('; ') }) });
    state.recorded = true;
  } catch (err) {
    // The answer (already an error) goes out; the lost entry is logged.
    request.log.error({ err }, 'could not write the audit failure entry');
  }
}
