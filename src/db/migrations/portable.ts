/**
 * FROZEN helpers for migrations (never import application code here). One storage decision per
 * column type, identical on both databases:
 *   ids         SQLite INTEGER PRIMARY KEY AUTOINCREMENT / PostgreSQL bigserial (JS number)
 *   timestamps  BIGINT microseconds since the Unix epoch, UTC (JS number)
 *   booleans    INTEGER 0/1 (JS number; mapped to JSON booleans at the wire)
 *   JSON        TEXT (parsed in the mappers)
 */
import { PostgresAdapter, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>) {
  return isPostgres(db)
    ? table.addColumn('id', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

export function withTimestamps<T extends string, C extends string>(table: CreateTableBuilder<T, C>) {
  return table
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint');
}

export const bool = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0);
