/**
 * FROZEN: enterprise collection — clients, scheduled events, jobs and their per-domain results.
 * OU / domain targets are JSON arrays of objectids (TEXT); the graph resolves them at read time.
 * Exactly-once scheduling: a job made from an event occurrence is unique on (event_id, execution_time).
 */
import type { Kysely } from 'kysely';
import { bool, withId, withTimestamps } from './portable.ts';

const SWITCHES = [
  'session_collection', 'local_group_collection', 'ad_structure_collection', 'cert_services_collection',
  'ca_registry_collection', 'dc_registry_collection', 'all_trusted_domains',
];

export async function up(db: Kysely<any>): Promise<void> {
  await withTimestamps(db.schema.createTable('clients'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('domain_controller', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ip_address', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('hostname', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_checkin', 'bigint')
    .addColumn('current_job_id', 'bigint')
    // Bumped in the same transaction as every write that changes what this client's job listing shows.
    .addColumn('jobs_version', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  let events = withTimestamps(withId(db, db.schema.createTable('client_events')))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('rrule', 'text', (c) => c.notNull())
    .addColumn('ous', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('domains', 'text', (c) => c.notNull().defaultTo('[]'))
    // The next occurrence not yet turned into a job (null: the rule has no further occurrence).
    .addColumn('next_run_at', 'bigint');
  for (const s of SWITCHES) events = events.addColumn(s, 'integer', bool);
  await events.execute();
  await db.schema.createIndex('client_events_client_id').on('client_events').column('client_id').execute();
  await db.schema.createIndex('client_events_next_run_at').on('client_events').column('next_run_at').execute();

  let jobs = withTimestamps(withId(db, db.schema.createTable('client_jobs')))
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('event_id', 'bigint', (c) => c.references('client_events.id').onDelete('set null'))
    .addColumn('event_title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('execution_time', 'bigint', (c) => c.notNull())
    .addColumn('start_time', 'bigint')
    .addColumn('end_time', 'bigint')
    .addColumn('last_ingest', 'bigint')
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status_message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('log_path', 'text')
    .addColumn('domain_controller', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ous', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('domains', 'text', (c) => c.notNull().defaultTo('[]'));
  for (const s of SWITCHES) jobs = jobs.addColumn(s, 'integer', bool);
  await jobs.execute();
  await db.schema.createIndex('client_jobs_available').on('client_jobs')
    .columns(['client_id', 'status', 'execution_time']).execute();
  await db.schema.createIndex('client_jobs_event_occurrence').on('client_jobs')
    .columns(['event_id', 'execution_time']).unique().execute();
  await db.schema.createIndex('client_jobs_execution_time').on('client_jobs').column('execution_time').execute();

  await withTimestamps(withId(db, db.schema.createTable('client_job_domain_results')))
    .addColumn('job_id', 'bigint', (c) => c.notNull().references('client_jobs.id').onDelete('cascade'))
    .addColumn('domain_name', 'text', (c) => c.notNull())
    .addColumn('success', 'integer', bool)
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('counts', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('client_job_domain_results_job_id').on('client_job_domain_results').column('job_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['client_job_domain_results', 'client_jobs', 'client_events', 'clients']) {
    await db.schema.dropTable(table).execute();
  }
}
