/**
 * FROZEN: BloodHound's upload flow. A job collects files; each file's bytes are kept in the
 * database in 1 MiB chunks until the ingest worker has read them (so any server instance sharing
 * the database can process any job), then the chunks are deleted.
 */
import type { Kysely } from 'kysely';
import { isPostgres, withId, withTimestamps } from './portable.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withTimestamps(withId(db, db.schema.createTable('file_upload_jobs')))
    .addColumn('user_id', 'text')
    .addColumn('user_email_address', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('status_message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    .addColumn('end_time', 'bigint')
    .addColumn('last_ingest', 'bigint')
    .addColumn('total_files', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed_files', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_at', 'bigint')
    .execute();
  await db.schema.createIndex('file_upload_jobs_status').on('file_upload_jobs').columns(['status', 'id']).execute();

  await withTimestamps(withId(db, db.schema.createTable('file_upload_files')))
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('file_upload_jobs.id').onDelete('cascade'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
    /** 0 stored, 2 ingested, 5 failed (job-status integers) */
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    /** JSON text: [{ file_name, error }] for the documents that failed, warnings, counts */
    .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('result', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('file_upload_files_job').on('file_upload_files').columns(['job_id', 'id']).execute();

  await db.schema.createTable('file_upload_chunks')
    .addColumn('file_id', 'bigint', (c) => c.notNull().references('file_upload_files.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('file_upload_chunks_pk', ['file_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('file_upload_chunks').execute();
  await db.schema.dropTable('file_upload_files').execute();
  await db.schema.dropTable('file_upload_jobs').execute();
}
