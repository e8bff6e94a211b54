import { Type, type Static } from '@sinclair/typebox';
import { targetFields } from '../events/events.schema.ts';
import { COUNT_NAMES, Text } from './jobs.schema.ts';

/** Request bodies of the job routes. */
export const NewJobBody = Type.Object({
  ...targetFields,
  domain_controller: Type.Optional(Text({ maxLength: 500 })),
  execution_time: Type.Optional(Type.String({ maxLength: 64, description: 'RFC-3339; default now' })),
});
export type NewJobBody = Static<typeof NewJobBody>;

export const StartJobBody = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'the job to claim' }) });
export type StartJobBody = Static<typeof StartJobBody>;

const Count = Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }));
const counts = Object.fromEntries(COUNT_NAMES.map((n) => [n, Count])) as Record<(typeof COUNT_NAMES)[number], typeof Count>;

export const DomainResultBody = Type.Object({
  domain_name: Text({ minLength: 1, maxLength: 500 }),
  success: Type.Boolean(),
  message: Type.Optional(Text({ maxLength: 10000 })),
  ...counts,
});

export const EndJobBody = Type.Object({
  status: Type.Optional(Type.Integer({ description: '2 complete (default), 5 failed, 8 partially complete' })),
  message: Type.Optional(Text({ maxLength: 10000 })),
  log_path: Type.Optional(Text({ maxLength: 2000 })),
  log: Type.Optional(Text({ maxLength: 1_000_000, description: 'the collector log of the run; GET /api/v2/jobs/{id}/log answers it' })),
  domain_results: Type.Optional(Type.Array(DomainResultBody, { maxItems: 10000 })),
});
export type EndJobBody = Static<typeof EndJobBody>;
