import { Type } from '@sinclair/typebox';
import { DataEnvelope, errorResponses } from '../../http/envelope.ts';
import { route } from '../../http/route.ts';
import { nowMicros, toRfc3339 } from '../../db/time.ts';

/**
 * `GET /api/v2/datapipe/status` as BloodHound (`RequireAuth`): what the ingest pipeline is doing. In
 * Scent an upload job is ingested and then analysed by the ingest worker: `ingesting` while a job is
 * (status 6), `analyzing` while one is analysed (7), else `idle`; the analysis times are those of the
 * last job that finished (complete or partially complete). bhcli's `status datapipe` reads it.
 */
const INGESTING = 6;
const ANALYZING = 7;
const FINISHED = [2, 8];

export const datapipeRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/datapipe/status',
    config: { access: { permissions: [] } },
    schema: {
      tags: ['file-upload'],
      summary: 'Ingest pipeline status: idle, ingesting or analyzing',
      response: {
        200: DataEnvelope(Type.Object({
          status: Type.String({ enum: ['idle', 'ingesting', 'analyzing'] }),
          updated_at: Type.String({ format: 'date-time' }),
          last_complete_analysis_at: Type.String({ format: 'date-time' }),
          last_analysis_run_at: Type.String({ format: 'date-time' }),
        })),
        ...errorResponses(401, 403),
      },
    },
    handler: async (request) => {
      const db = request.server.db.kysely;
      const busy = await db.selectFrom('file_upload_jobs').select('status').where('status', 'in', [INGESTING, ANALYZING]).execute();
      const last = await db.selectFrom('file_upload_jobs').select((eb) => eb.fn.max('updated_at').as('at'))
        .where('status', 'in', FINISHED).executeTakeFirst();
      const status = busy.some((j) => j.status === INGESTING) ? 'ingesting' : busy.length ? 'analyzing' : 'idle';
      const at = last?.at === null || last?.at === undefined ? null : Number(last.at);
      return { data: { status, updated_at: toRfc3339(nowMicros()), last_complete_analysis_at: toRfc3339(at), last_analysis_run_at: toRfc3339(at) } };
    },
  }),
];
