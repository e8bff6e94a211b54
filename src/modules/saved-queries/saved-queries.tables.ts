/** Table types of saved queries (migration 0050-saved-queries). */
import type { Generated, Selectable } from 'kysely';
import type { Bool } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';

export interface SavedQueryTable {
  id: Generated<number>;
  user_id: string;
  name: string;
  query: string;
  description: Generated<string>;
  created_at: Micros;
  updated_at: Micros;
}

export interface SavedQueryPermissionTable {
  id: Generated<number>;
  query_id: number;
  /** null on the public row. */
  shared_to_user_id: string | null;
  public: Bool;
  created_at: Micros;
  updated_at: Micros;
}

export interface SavedQueryTables {
  saved_queries: SavedQueryTable;
  saved_queries_permissions: SavedQueryPermissionTable;
}

export type SavedQueryRow = Selectable<SavedQueryTable>;
export type SavedQueryPermissionRow = Selectable<SavedQueryPermissionTable>;
