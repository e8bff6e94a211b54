/**
 * FROZEN: saved Cypher queries and their sharing (BloodHound's saved_queries and
 * saved_queries_permissions). A query belongs to a user; (user_id, name) is unique. A permission row
 * either shares the query with one user (shared_to_user_id) or makes it public (public = 1, no user).
 */
import type { Kysely } from 'kysely';
import { bool, withId } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('saved_queries'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('saved_queries_user_name', ['user_id', 'name'])
    .execute();

  await withId(db, db.schema.createTable('saved_queries_permissions'))
    .addColumn('query_id', 'bigint', (c) => c.notNull().references('saved_queries.id').onDelete('cascade'))
    .addColumn('shared_to_user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('public', 'integer', bool)
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saved_queries_permissions_query').on('saved_queries_permissions').column('query_id').execute();
  await db.schema.createIndex('saved_queries_permissions_user').on('saved_queries_permissions').columns(['shared_to_user_id', 'query_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saved_queries_permissions').execute();
  await db.schema.dropTable('saved_queries').execute();
}
