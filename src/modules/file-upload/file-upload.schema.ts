import { Type } from '@sinclair/typebox';
import { toRfc3339 } from '../../db/time.ts';
import { recordFields, recordTimes, Timestamp } from '../../http/envelope.ts';
import type { FileUploadFileRow, FileUploadJobRow } from './file-upload.tables.ts';

export const ACCEPTED_TYPES = ['application/json', 'application/zip', 'application/x-zip-compressed', 'application/zip-compressed'];

export const FileUploadJobSchema = Type.Object({
  id: Type.Integer(),
  user_id: Type.String(),
  user_email_address: Type.Union([Type.String(), Type.Null()]),
  status: Type.Integer({ description: 'job status (CONTRACT §6): 1 running (accepting files), 6 ingesting, 7 analyzing, 2 complete, 8 partially complete, 5 failed' }),
  status_message: Type.String(),
  start_time: Timestamp,
  end_time: Timestamp,
  last_ingest: Timestamp,
  total_files: Type.Integer(),
  failed_files: Type.Integer(),
  ...recordFields,
}, { $id: 'FileUploadJob' });

export const CompletedTaskSchema = Type.Object({
  id: Type.Integer(),
  ingest_job_id: Type.Integer(),
  file_name: Type.String({ description: 'the uploaded file (its X-File-Upload-Name)' }),
  parent_file_name: Type.String({ description: 'the uploaded file, as BloodHound names the file a task came from' }),
  content_type: Type.String(),
  size: Type.Integer(),
  status: Type.Integer(),
  errors: Type.Array(Type.String(), { description: '"<file>: <error>" per failed document (the file inside a zip named as zip/entry)' }),
  warnings: Type.Array(Type.String()),
  nodes: Type.Integer(),
  edges: Type.Integer(),
  ...recordFields,
}, { $id: 'FileUploadCompletedTask' });

export const fileUploadSchemas = [FileUploadJobSchema, CompletedTaskSchema];

export function toWireJob(row: FileUploadJobRow) {
  return {
    id: row.id,
    user_id: row.user_id ?? '',
    user_email_address: row.user_email_address,
    status: row.status,
    status_message: row.status_message,
    start_time: toRfc3339(row.start_time),
    end_time: toRfc3339(row.end_time),
    last_ingest: toRfc3339(row.last_ingest),
    total_files: row.total_files,
    failed_files: row.failed_files,
    ...recordTimes(row),
  };
}

export function toWireTask(row: FileUploadFileRow) {
  const result = JSON.parse(row.result) as { nodes?: number; edges?: number };
  const errors = JSON.parse(row.errors) as Array<{ file_name: string; error: string }>;
  return {
    id: row.id, ingest_job_id: row.job_id, file_name: row.file_name, parent_file_name: row.file_name, content_type: row.content_type,
    size: Number(row.size), status: row.status,
    // BloodHound's client shows errors as strings (warnings already name their file the same way).
    errors: errors.map((e) => `${e.file_name}: ${e.error}`),
    warnings: JSON.parse(row.warnings), nodes: result.nodes ?? 0, edges: result.edges ?? 0,
    ...recordTimes(row),
  };
}
