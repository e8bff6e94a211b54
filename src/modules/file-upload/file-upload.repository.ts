import type { Kysely } from 'kysely';
import type { Db } from '../../db/create-db.ts';
import type { Database } from '../../db/database.ts';
import { nowMicros } from '../../db/time.ts';
import type { FileUploadFileRow, FileUploadJobRow } from './file-upload.tables.ts';

type K = Kysely<Database>;
export const CHUNK_BYTES = 1024 * 1024;

export async function createJob(db: K, user: { id: string; email: string | null }, status: number): Promise<FileUploadJobRow> {
  const now = nowMicros();
  return db.insertInto('file_upload_jobs').values({
    user_id: user.id, user_email_address: user.email, status, status_message: '', start_time: now, end_time: null,
    last_ingest: null, total_files: 0, failed_files: 0, claimed_by: null, claimed_at: null,
    created_at: now, updated_at: now, deleted_at: null,
  }).returningAll().executeTakeFirstOrThrow();
}

export async function findJob(db: K, id: number): Promise<FileUploadJobRow | undefined> {
  return db.selectFrom('file_upload_jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateJob(db: K, id: number, values: Partial<Omit<FileUploadJobRow, 'id'>>): Promise<FileUploadJobRow | undefined> {
  return db.updateTable('file_upload_jobs').set({ ...values, updated_at: nowMicros() }).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function listFiles(db: K, jobId: number): Promise<FileUploadFileRow[]> {
  return db.selectFrom('file_upload_files').selectAll().where('job_id', '=', jobId).orderBy('id').execute();
}

/** Stores one uploaded body in 1 MiB chunks; the file row is removed again if the stream fails. */
export async function storeFile(db: K, jobId: number, fileName: string, contentType: string, body: AsyncIterable<Buffer>): Promise<FileUploadFileRow> {
  const now = nowMicros();
  const file = await db.insertInto('file_upload_files').values({
    job_id: jobId, file_name: fileName, content_type: contentType, size: 0, status: 0, errors: '[]', warnings: '[]', result: '{}',
    created_at: now, updated_at: now, deleted_at: null,
  }).returningAll().executeTakeFirstOrThrow();
  let seq = 0;
  let size = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (!pendingBytes) return;
    await db.insertInto('file_upload_chunks').values({ file_id: file.id, seq: seq++, data: Buffer.concat(pending) }).execute();
    pending = [];
    pendingBytes = 0;
  };
  try {
    for await (const piece of body) {
      pending.push(piece);
      pendingBytes += piece.length;
      size += piece.length;
      if (pendingBytes >= CHUNK_BYTES) await flush();
    }
    await flush();
  } catch (err) {
    await db.deleteFrom('file_upload_files').where('id', '=', file.id).execute();
    throw err;
  }
  await db.updateTable('file_upload_files').set({ size }).where('id', '=', file.id).execute();
  return { ...file, size };
}

/**
 * The stored bytes of a file, chunk by chunk, read beneath Kysely (db.bulk): the ingest reads them
 * while its graph transaction may hold Kysely's only SQLite connection.
 */
export async function* readChunks(db: Db, fileId: number): AsyncGenerator<Buffer> {
  const bulk = db.bulk;
  if (bulk.dialect === 'sqlite') {
    const stmt = bulk.database.prepare('SELECT data FROM file_upload_chunks WHERE file_id = ? AND seq = ?').pluck();
    for (let seq = 0; ; seq++) {
      const data = stmt.get(fileId, seq) as Buffer | undefined;
      if (!data) return;
      yield data;
    }
  }
  if (bulk.dialect !== 'postgres') return;
  for (let seq = 0; ; seq++) {
    const { rows } = await bulk.pool.query<{ data: Buffer }>('SELECT data FROM file_upload_chunks WHERE file_id = $1 AND seq = $2', [fileId, seq]);
    if (!rows.length) return;
    yield rows[0].data;
  }
}

export async function deleteChunks(db: K, jobId: number): Promise<void> {
  await db.deleteFrom('file_upload_chunks')
    .where('file_id', 'in', db.selectFrom('file_upload_files').select('id').where('job_id', '=', jobId))
    .execute();
}
