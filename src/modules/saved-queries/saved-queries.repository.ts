import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/database.ts';
import { nowMicros, toRfc3339 } from '../../db/time.ts';
import { nullTime } from '../../http/envelope.ts';
import type { SavedQueryPermissionRow, SavedQueryRow } from './saved-queries.tables.ts';

type K = Kysely<Database> | Transaction<Database>;

export type Scope = 'owned' | 'shared' | 'public' | 'all';

/** The queries a user sees in a scope (BloodHound: all = owned ∪ shared to me ∪ public). */
export function visibleQueries(db: K, userId: string, scope: Scope) {
  const sharedToMe = db.selectFrom('saved_queries_permissions').select('query_id').where('shared_to_user_id', '=', userId);
  const publicIds = db.selectFrom('saved_queries_permissions').select('query_id').where('public', '=', 1);
  const base = db.selectFrom('saved_queries');
  switch (scope) {
    case 'owned': return base.where('saved_queries.user_id', '=', userId);
    case 'shared': return base.where('saved_queries.id', 'in', sharedToMe);
    case 'public': return base.where('saved_queries.id', 'in', publicIds);
    default: return base.where((eb) => eb.or([
      eb('saved_queries.user_id', '=', userId), eb('saved_queries.id', 'in', sharedToMe), eb('saved_queries.id', 'in', publicIds),
    ]));
  }
}

export async function findQuery(db: K, id: number): Promise<SavedQueryRow | undefined> {
  return db.selectFrom('saved_queries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function permissionsOf(db: K, queryId: number): Promise<SavedQueryPermissionRow[]> {
  return db.selectFrom('saved_queries_permissions').selectAll().where('query_id', '=', queryId).orderBy('id').execute();
}

export async function isPublic(db: K, queryId: number): Promise<boolean> {
  return (await db.selectFrom('saved_queries_permissions').select('id').where('query_id', '=', queryId).where('public', '=', 1).executeTakeFirst()) !== undefined;
}

export async function isSharedTo(db: K, queryId: number, userId: string): Promise<boolean> {
  return (await db.selectFrom('saved_queries_permissions').select('id').where('query_id', '=', queryId).where('shared_to_user_id', '=', userId).executeTakeFirst()) !== undefined;
}

export async function isAdministrator(db: K, userId: string): Promise<boolean> {
  const row = await db.selectFrom('users_roles').innerJoin('roles', 'roles.id', 'users_roles.role_id')
    .select('roles.id').where('users_roles.user_id', '=', userId).where('roles.name', '=', 'Administrator').executeTakeFirst();
  return row !== undefined;
}

export class DuplicateName extends Error {}

/** Inserts queries (all or none); a (user, name) already taken is DuplicateName. */
export async function insertQueries(db: Kysely<Database>, rows: Array<{ userId: string; name: string; query: string; description: string }>): Promise<SavedQueryRow[]> {
  try {
    return await db.transaction().execute(async (trx) => {
      const out: SavedQueryRow[] = [];
      const now = nowMicros();
      for (const r of rows) {
        out.push(await trx.insertInto('saved_queries')
          .values({ user_id: r.userId, name: r.name, query: r.query, description: r.description, created_at: now, updated_at: now })
          .returningAll().executeTakeFirstOrThrow());
      }
      return out;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateName();
    throw err;
  }
}

export async function updateQuery(db: Kysely<Database>, id: number, change: { name?: string; query?: string; description?: string }): Promise<SavedQueryRow> {
  try {
    return await db.updateTable('saved_queries').set({ ...change, updated_at: nowMicros() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateName();
    throw err;
  }
}

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed/.test(e.message ?? '');
}

export async function addPermissions(db: K, queryId: number, rows: Array<{ sharedTo: string | null; public: boolean }>): Promise<SavedQueryPermissionRow[]> {
  const now = nowMicros();
  const out: SavedQueryPermissionRow[] = [];
  for (const r of rows) {
    out.push(await db.insertInto('saved_queries_permissions')
      .values({ query_id: queryId, shared_to_user_id: r.sharedTo, public: r.public ? 1 : 0, created_at: now, updated_at: now })
      .returningAll().executeTakeFirstOrThrow());
  }
  return out;
}

export async function deletePermissions(db: K, queryId: number, userIds?: string[]): Promise<void> {
  let q = db.deleteFrom('saved_queries_permissions').where('query_id', '=', queryId);
  if (userIds) q = q.where('shared_to_user_id', 'in', userIds.length ? userIds : ['']);
  await q.execute();
}

/** The wire form of a saved query (BloodHound's model.SavedQuery; `scope` in lists). */
export function toWireQuery(r: SavedQueryRow, scope?: 'owned' | 'shared' | 'public') {
  return {
    user_id: r.user_id, name: r.name, query: r.query, description: r.description, id: Number(r.id),
    created_at: toRfc3339(r.created_at), updated_at: toRfc3339(r.updated_at), deleted_at: nullTime(null),
    ...(scope ? { scope } : {}),
  };
}

export function toWirePermission(r: SavedQueryPermissionRow) {
  return {
    shared_to_user_id: r.shared_to_user_id, query_id: Number(r.query_id), public: r.public === 1, id: Number(r.id),
    created_at: toRfc3339(r.created_at), updated_at: toRfc3339(r.updated_at), deleted_at: nullTime(null),
  };
}

/** Per-row scope of a listing: public when public and not mine, shared when shared to me, else owned. */
export async function scopesOf(db: K, userId: string, rows: SavedQueryRow[]): Promise<Map<number, 'owned' | 'shared' | 'public'>> {
  const ids = rows.map((r) => Number(r.id));
  const out = new Map<number, 'owned' | 'shared' | 'public'>();
  if (ids.length === 0) return out;
  const perms = await db.selectFrom('saved_queries_permissions').select(['query_id', 'shared_to_user_id', 'public'])
    .where('query_id', 'in', ids).execute();
  for (const r of rows) {
    const id = Number(r.id);
    const mine = perms.filter((p) => Number(p.query_id) === id);
    if (mine.some((p) => p.public === 1) && r.user_id !== userId) out.set(id, 'public');
    else if (mine.some((p) => p.shared_to_user_id === userId)) out.set(id, 'shared');
    else out.set(id, 'owned');
  }
  return out;
}

