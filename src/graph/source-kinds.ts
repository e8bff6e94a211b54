/**
 * Source kinds, numbered as BloodHound's `source_kinds` table: Base (1, Active Directory), AZBase (2, Azure),
 * then each OpenGraph source kind in the graph (3, 4, ... in name order), and 0 for nodes of no source kind
 * (placeholders that only edges named). `GET /graphs/source-kinds` lists them; `POST /clear-database`
 * deletes by these ids.
 */
import { sql } from 'kysely';
import type { Db } from '../db/create-db.ts';

export const SOURCELESS_ID = 0;

export async function listSourceKinds(db: Db): Promise<Array<{ id: number; name: string }>> {
  const { rows } = await sql<{ s: string }>`select distinct source_kind as s from nodes where source_kind is not null`.execute(db.kysely);
  const others = rows.map((r) => r.s).filter((s) => s !== 'Base' && s !== 'AZBase' && s !== '').sort();
  return [{ id: 1, name: 'Base' }, { id: 2, name: 'AZBase' }, ...others.map((name, i) => ({ id: i + 3, name })), { id: SOURCELESS_ID, name: 'Sourceless' }];
}
