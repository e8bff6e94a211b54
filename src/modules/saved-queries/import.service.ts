import { readFile } from 'node:fs/promises';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { UserInputError } from '../users/users.service.ts';
import { addPermissions, isPublic } from './saved-queries.repository.ts';
import { parseQueryJson, parseQueryZip, TransferError, uniqueNames, type TransferableQuery } from './transfer.ts';

export interface ImportOutcome {
  created: number;
  updated: number;
}

/**
 * Loads a query file (BloodHound's JSON or zip, or a JSON array such as the Query Library's
 * Queries.json) into one user's saved queries. A name already saved by that user is updated in place,
 * so importing again changes nothing; a name repeated in the file gets its platforms appended
 * ("X (Azure)"), else a counter. `makePublic` shares every imported query with everyone.
 */
export async function importQueryFile(db: Db, path: string, principalName: string, makePublic: boolean): Promise<ImportOutcome> {
  const user = await db.kysely.selectFrom('users').select('id').where('principal_name', '=', principalName).executeTakeFirst();
  if (!user) throw new UserInputError(`no user named ${principalName}`);
  let queries: TransferableQuery[];
  try {
    const data = await readFile(path);
    queries = data.subarray(0, 2).toString('latin1') === 'PK' ? await parseQueryZip(data) : parseQueryJson(data.toString('utf8'));
  } catch (err) {
    if (err instanceof TransferError) throw new UserInputError(err.message);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UserInputError(`no such file: ${path}`);
    throw err;
  }
  const empty = queries.findIndex((q) => q.name === '' || q.query === '');
  if (empty >= 0) throw new UserInputError(`query ${empty + 1} of the file has no name or no query text`);
  const named = uniqueNames(queries);
  const outcome: ImportOutcome = { created: 0, updated: 0 };
  await db.kysely.transaction().execute(async (trx) => {
    const now = nowMicros();
    for (const q of named) {
      const existing = await trx.selectFrom('saved_queries').select('id').where('user_id', '=', user.id).where('name', '=', q.name).executeTakeFirst();
      let id: number;
      if (existing) {
        id = Number(existing.id);
        await trx.updateTable('saved_queries').set({ query: q.query, description: q.description, updated_at: now }).where('id', '=', id).execute();
        outcome.updated++;
      } else {
        const row = await trx.insertInto('saved_queries')
          .values({ user_id: user.id, name: q.name, query: q.query, description: q.description, created_at: now, updated_at: now })
          .returning('id').executeTakeFirstOrThrow();
        id = Number(row.id);
        outcome.created++;
      }
      if (makePublic && !(await isPublic(trx, id))) await addPermissions(trx, id, [{ sharedTo: null, public: true }]);
    }
  });
  return outcome;
}
