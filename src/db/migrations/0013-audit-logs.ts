/**
 * FROZEN: the audit log (BloodHound's `audit_logs`): one row per audited request, written in the
 * same transaction as the change it records (src/audit/audit.ts). No route updates or deletes rows.
 */
import type { Kysely } from 'kysely';
import { withId } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('audit_logs'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('actor_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('actor_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('actor_email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('request_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('source_ip_address', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('commit_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_logs_created_at').on('audit_logs').column('created_at').execute();
  await db.schema.createIndex('audit_logs_actor_id').on('audit_logs').column('actor_id').execute();
  await db.schema.createIndex('audit_logs_action').on('audit_logs').column('action').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_logs').execute();
}
