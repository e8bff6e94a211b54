import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, recordFields, recordTimes, timeOrNull } from '../../http/envelope.ts';
import type { ClientRow } from '../jobs/collection.tables.ts';
import { ClientJobSchema, Text } from '../jobs/jobs.schema.ts';
import { EventSchema } from '../events/events.schema.ts';

/** A collection client (BloodHound Enterprise's SharpHound / AzureHound collectors). */
export const CLIENT_TYPES = ['sharphound', 'azurehound'] as const;

/**
 * BloodHound's client object (its JS client's `Client` type). Clients are outside the seed, so
 * nullable fields are the plain value or null (CONTRACT §6); `deleted_at` keeps the seed's wrapper.
 * Scent has no tasks, no per-client configured user / SID and no issuer override: those fields
 * carry their empty values.
 */
export const ClientSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    type: Type.String({ enum: [...CLIENT_TYPES] }),
    domain_controller: Type.String(),
    ip_address: Type.String({ description: 'address of the last check-in' }),
    hostname: Type.String(),
    configured_user: Type.String({ description: 'always "" in Scent' }),
    user_sid: Type.String({ description: 'always "" in Scent' }),
    version: Type.String({ description: 'collector version from the User-Agent of its last check-in ("" before one)' }),
    last_checkin: Nullable(Timestamp),
    current_job_id: Nullable(Type.Integer()),
    current_job: Nullable(Type.Ref(ClientJobSchema)),
    current_task_id: Type.Null({ description: 'Scent has no tasks' }),
    current_task: Type.Null({ description: 'Scent has no tasks' }),
    completed_job_count: Type.Integer({ description: 'finished jobs: complete, canceled, timed out, failed, partially complete' }),
    completed_task_count: Type.Integer({ description: 'always 0 in Scent' }),
    events: Type.Array(Type.Ref(EventSchema), { description: "the client's scheduled collection events" }),
    token: Type.Null({ description: 'a client token is shown once, by PUT /api/v2/clients/{id}/token' }),
    issuer_address: Type.String(),
    issuer_address_override: Type.String(),
    ...recordFields,
  },
  { $id: 'Client' },
);

export const CreateClientBody = Type.Object({
  name: Text({ minLength: 1, maxLength: 200, description: 'unique name of the client' }),
  type: Type.String({ enum: [...CLIENT_TYPES], description: 'sharphound | azurehound' }),
  domain_controller: Type.Optional(Text({ maxLength: 500, description: 'domain controller the collector talks to' })),
});
export type CreateClientBody = Static<typeof CreateClientBody>;

export const UpdateClientBody = Type.Object({
  name: Text({ minLength: 1, maxLength: 200 }),
  domain_controller: Type.Optional(Text({ maxLength: 500 })),
});
export type UpdateClientBody = Static<typeof UpdateClientBody>;

export const ClientTokenSchema = Type.Object(
  { client_id: Type.String({ format: 'uuid' }), token: Type.String(), expires_at: Type.String({ format: 'date-time' }) },
  { $id: 'ClientToken' },
);

export const clientSchemas = [ClientSchema, ClientTokenSchema];

/** What a client's wire object adds to its row (read by clients.service.ts `wireClients`). */
export interface ClientExtras {
  events: unknown[];
  currentJob: unknown;
  completedJobs: number;
}

export function toWireClient(row: ClientRow, extras: ClientExtras) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    domain_controller: row.domain_controller,
    ip_address: row.ip_address,
    hostname: row.hostname,
    configured_user: '',
    user_sid: '',
    version: row.version,
    last_checkin: timeOrNull(row.last_checkin),
    current_job_id: row.current_job_id,
    current_job: extras.currentJob,
    current_task_id: null,
    current_task: null,
    completed_job_count: extras.completedJobs,
    completed_task_count: 0,
    events: extras.events,
    token: null,
    issuer_address: '',
    issuer_address_override: '',
    ...recordTimes(row),
  };
}
