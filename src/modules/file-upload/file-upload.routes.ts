/**
 * BloodHound's upload flow: start a job, POST each file (the body is the file: JSON or zip), end
 * the job; the ingest worker (ingest.worker.ts) takes it from there. Bodies are streamed into the
 * database in a preParsing hook, never held whole in memory.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DataEnvelope, errorResponses, PageEnvelope } from '../../http/envelope.ts';
import { ApiError, badRequest, Messages, notFound } from '../../http/errors.ts';
import { applyFilters, applyPaging, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { audited, auditNote } from '../../audit/audit.ts';
import type { Db } from '../../db/create-db.ts';
import { nowMicros } from '../../db/time.ts';
import { JOB_STATUS_FILTER, JobStatus } from '../jobs/job-status.ts';
import { createJob, findJob, listFiles, storeFile, updateJob } from './file-upload.repository.ts';
import { ACCEPTED_TYPES, CompletedTaskSchema, FileUploadJobSchema, toWireJob, toWireTask } from './file-upload.schema.ts';
import type { FileUploadFileRow } from './file-upload.tables.ts';
import { checkedUpload } from './upload-check.ts';

/** BloodHound's texts (reference §11). */
export const FileUploadMessages = {
  contentType: 'Content type must be application/json or application/zip',
  notRunning: 'job must be in running status to attach files',
  notRunningEnd: 'job must be in running status to end',
} as const;

/** The uploaded file's name: `X-File-Upload-Name` (BloodHound's header; `X-File-Name` is still read), else BloodHound's default. */
function uploadName(request: FastifyRequest, mediaType: string): string {
  const given = request.headers['x-file-upload-name'] ?? request.headers['x-file-name'];
  const name = (Array.isArray(given) ? given[0] : given)?.trim();
  return name ? name.slice(0, 1000) : `UnknownFileName.${mediaType === 'application/json' ? 'json' : 'zip'}`;
}

const listQuery = defineQuery({
  filters: {
    id: { kind: 'integer', column: 'id' },
    user_id: { kind: 'uuid', column: 'user_id' },
    user_email_address: { kind: 'string', column: 'user_email_address', nullable: true },
    status: { kind: 'string', column: 'status', enum: JOB_STATUS_FILTER },
    status_message: { kind: 'string', column: 'status_message' },
    start_time: { kind: 'timestamp', column: 'start_time' },
    end_time: { kind: 'timestamp', column: 'end_time', nullable: true },
    last_ingest: { kind: 'timestamp', column: 'last_ingest', nullable: true },
    total_files: { kind: 'integer', column: 'total_files' },
    failed_files: { kind: 'integer', column: 'failed_files' },
    created_at: { kind: 'timestamp', column: 'created_at' },
    updated_at: { kind: 'timestamp', column: 'updated_at' },
  },
  sortable: {
    id: 'id', status: 'status', user_email_address: 'user_email_address', start_time: 'start_time', end_time: 'end_time',
    last_ingest: 'last_ingest', total_files: 'total_files', failed_files: 'failed_files', created_at: 'created_at', updated_at: 'updated_at',
  },
  defaultSort: [{ column: 'start_time', descending: true }],
  tieBreaker: 'id',
  paging: { defaultLimit: 100 },
});

const jobParams = Type.Object({ file_upload_job_id: Type.Integer({ format: 'int32' }) });
const mediaType = (request: FastifyRequest) => String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();

declare module 'fastify' {
  interface FastifyRequest {
    uploadedFile?: FileUploadFileRow;
  }
}

/** Lets zip bodies through to the upload route (whose preParsing hook has already stored them). */
export function registerUploadBodies(app: FastifyInstance): void {
  app.addContentTypeParser(ACCEPTED_TYPES.filter((t) => t !== 'application/json'), (_request, payload, done) => {
    payload.resume();
    payload.on('end', () => done(null, undefined));
    payload.on('error', (err) => done(err, undefined));
  });
}

async function runningJob(db: Db, rawId: unknown, notRunning: string = FileUploadMessages.notRunning) {
  const id = typeof rawId === 'string' && /^\d{1,10}$/.test(rawId) && Number(rawId) <= 2147483647 ? Number(rawId) : NaN;
  if (Number.isNaN(id)) throw badRequest(Messages.idMalformed);
  const job = await findJob(db.kysely, id);
  if (!job) throw notFound();
  if (job.status !== JobStatus.running) throw badRequest(notRunning);
  return job;
}

export const fileUploadRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/file-upload',
    config: { access: { permissions: [] }, query: listQuery },
    schema: {
      tags: ['file-upload'], summary: 'List file upload jobs',
      response: { 200: PageEnvelope(Type.Array(Type.Ref(FileUploadJobSchema))), ...errorResponses(400, 401) },
    },
    handler: async (request) => {
      const parsed = request.parsedQuery;
      const base = applyFilters(request.server.db.kysely.selectFrom('file_upload_jobs'), listQuery, parsed);
      const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await applyPaging(applySort(base.selectAll(), listQuery, parsed), parsed).execute();
      return { count: Number(total.n), skip: parsed.skip, limit: parsed.limit, data: rows.map(toWireJob) };
    },
  }),
  route({
    method: 'GET',
    url: '/api/v2/file-upload/accepted-types',
    config: { access: { permissions: [] } },
    schema: {
      tags: ['file-upload'], summary: 'Content types accepted by POST /api/v2/file-upload/{id}',
      response: { 200: DataEnvelope(Type.Array(Type.String())), ...errorResponses(401) },
    },
    handler: async () => ({ data: ACCEPTED_TYPES }),
  }),
  route({
    method: 'POST',
    url: '/api/v2/file-upload/start',
    config: { access: { permissions: ['graphdb/Ingest'] }, audit: { action: 'StartFileUpload' } },
    schema: {
      tags: ['file-upload'], summary: 'Start a file upload job (201, as BloodHound)',
      response: { 201: DataEnvelope(Type.Ref(FileUploadJobSchema)), ...errorResponses(401, 403) },
    },
    handler: async (request, reply) => {
      const p = request.principal!;
      const user = p.kind === 'user' ? { id: p.user.id, email: p.user.email_address } : { id: p.clientId, email: null };
      return reply.code(201).send({ data: toWireJob(await audited(request, (db) => createJob(db.kysely, user, JobStatus.running))) });
    },
  }),
  route<{ Params: { file_upload_job_id: number } }>({
    method: 'POST',
    url: '/api/v2/file-upload/:file_upload_job_id',
    bodyLimit: Number.MAX_SAFE_INTEGER, // enforced while streaming: config.uploadLimit
    config: { access: { permissions: ['graphdb/Ingest'] }, audit: { action: 'UploadFile' } },
    schema: {
      tags: ['file-upload'],
      summary: 'Upload one file (the body) into a running job: application/json (the classic meta/data or the generic graph format) or application/zip; `X-File-Upload-Name` names it',
      params: jobParams,
      response: { 202: Type.Null(), ...errorResponses(400, 401, 403, 404, 413) },
    },
    preParsing: async (request, _reply, payload) => {
      const type = mediaType(request);
      if (!ACCEPTED_TYPES.includes(type)) throw badRequest(FileUploadMessages.contentType);
      const job = await runningJob(request.server.db, (request.params as Record<string, unknown>).file_upload_job_id);
      const limit = request.server.config.uploadLimit;
      let received = 0;
      const limited = async function* () {
        for await (const chunk of payload as AsyncIterable<Buffer>) {
          received += chunk.length;
          if (received > limit) throw new ApiError(413, Messages.tooLarge);
          yield chunk;
        }
      };
      request.uploadedFile = await storeFile(request.server.db.kysely, job.id, uploadName(request, type), type, checkedUpload(type, limited()));
      // Bytes as received (a Content-Encoding decoder before this hook reports them), for Content-Length.
      const empty = Readable.from([]) as Readable & { receivedEncodedLength?: number };
      empty.receivedEncodedLength = (payload as { receivedEncodedLength?: number }).receivedEncodedLength ?? received;
      return empty;
    },
    handler: async (request, reply) => {
      const file = request.uploadedFile;
      if (!file) throw badRequest(Messages.contentType);
      auditNote(request, { fields: { file_name: file.file_name, content_type: file.content_type, size: file.size } });
      // The file's chunks were streamed in by preParsing; attaching it to its job is the audited change
      // (the job counts it at once: a running job shows its real total_files).
      const now = nowMicros();
      await audited(request, (db) => db.kysely.updateTable('file_upload_jobs')
        .set((eb) => ({ total_files: eb('total_files', '+', 1), last_ingest: now, updated_at: now }))
        .where('id', '=', file.job_id).execute());
      return reply.status(202).send();
    },
  }),
  route<{ Params: { file_upload_job_id: number } }>({
    method: 'POST',
    url: '/api/v2/file-upload/:file_upload_job_id/end',
    config: { access: { permissions: ['graphdb/Ingest'] }, audit: { action: 'EndFileUpload' } },
    schema: {
      tags: ['file-upload'], summary: 'End a file upload job: its files are queued for ingest',
      params: jobParams,
      response: { 200: DataEnvelope(Type.Ref(FileUploadJobSchema)), ...errorResponses(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const updated = await audited(request, async (tx) => {
        const job = await runningJob(tx, String(request.params.file_upload_job_id), FileUploadMessages.notRunningEnd);
        const total = (await listFiles(tx.kysely, job.id)).length;
        return updateJob(tx.kysely, job.id, { status: JobStatus.ingesting, total_files: total, status_message: `${total} file${total === 1 ? '' : 's'} queued for ingest` });
      });
      return { data: toWireJob(updated!) };
    },
  }),
  route<{ Params: { file_upload_job_id: number } }>({
    method: 'GET',
    url: '/api/v2/file-upload/:file_upload_job_id/completed-tasks',
    config: { access: { permissions: [] } },
    schema: {
      tags: ['file-upload'], summary: 'The files of a job with their ingest results (errors and warnings per file)',
      params: jobParams,
      response: { 200: DataEnvelope(Type.Array(Type.Ref(CompletedTaskSchema))), ...errorResponses(400, 401, 404) },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      if (!(await findJob(db, request.params.file_upload_job_id))) throw notFound();
      const files = await listFiles(db, request.params.file_upload_job_id);
      return { data: files.filter((f) => f.status !== 0).map(toWireTask) };
    },
  }),
];
