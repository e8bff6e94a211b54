import { Text } from '../jobs/jobs.schema.ts';
import { Type, type Static } from '@sinclair/typebox';
import { NullInt32, NullTime, nullInt32, nullTime, recordFields, recordTimes } from '../../http/envelope.ts';
import type { ClientRow } from '../jobs/collection.tables.ts';

/** A collection client (BloodHound Enterprise's SharpHound / AzureHound collectors). */
export const CLIENT_TYPES = ['sharphound', 'azurehound'] as const;

export const ClientSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    type: Type.String({ enum: [...CLIENT_TYPES] }),
    domain_controller: Type.String(),
    ip_address: Type.String(),
    hostname: Type.String(),
    last_checkin: NullTime,
    current_job_id: NullInt32,
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

export function toWireClient(row: ClientRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    domain_controller: row.domain_controller,
    ip_address: row.ip_address,
    hostname: row.hostname,
    last_checkin: nullTime(row.last_checkin),
    current_job_id: nullInt32(row.current_job_id),
    ...recordTimes(row),
  };
}
