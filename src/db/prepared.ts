import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './database.ts';

/**
 * A query built with Kysely ONCE per database handle and re-run with new parameters: for the few
 * statements on every request's path (authentication), where building and compiling the query each
 * time costs more than running it. `build` must use exactly the parameters it is later given, in
 * order (compile it with placeholder values of the right types).
 */
export function prepared<R>(build: (db: Kysely<Database>) => { compile(): CompiledQuery<R> }) {
  const sqlByDb = new WeakMap<Kysely<Database>, string>();
  return async (db: Kysely<Database>, parameters: readonly unknown[]): Promise<R[]> => {
    let text = sqlByDb.get(db);
    if (text === undefined) {
      const compiled = build(db).compile();
      if (compiled.parameters.length !== parameters.length) {
        throw new Error(`prepared query expects ${compiled.parameters.length} parameters, got ${parameters.length}`);
      }
      sqlByDb.set(db, (text = compiled.sql));
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(text, [...parameters]));
    return result.rows;
  };
}
