/** Table types of migration 0007-file-upload. */
import type { Generated, Selectable } from 'kysely';
import type { Timestamps } from '../../db/database.ts';
import type { Micros } from '../../db/time.ts';

export interface FileUploadJobTable extends Timestamps {
  id: Generated<number>;
  user_id: string | null;
  user_email_address: string | null;
  status: number;
  status_message: string;
  start_time: Micros;
  end_time: Micros | null;
  last_ingest: Micros | null;
  total_files: number;
  failed_files: number;
  claimed_by: string | null;
  claimed_at: Micros | null;
}

export interface FileUploadFileTable extends Timestamps {
  id: Generated<number>;
  job_id: number;
  file_name: string;
  content_type: string;
  size: number;
  status: number;
  errors: string;
  warnings: string;
  result: string;
}

export interface FileUploadChunkTable {
  file_id: number;
  seq: number;
  data: Buffer;
}

export interface FileUploadTables {
  file_upload_jobs: FileUploadJobTable;
  file_upload_files: FileUploadFileTable;
  file_upload_chunks: FileUploadChunkTable;
}

export type FileUploadJobRow = Selectable<FileUploadJobTable>;
export type FileUploadFileRow = Selectable<FileUploadFileTable>;
