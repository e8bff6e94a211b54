import { Type } from '@sinclair/typebox';
import { toRfc3339 } from '../../db/time.ts';
import type { AuditLogRow } from '../../audit/audit.tables.ts';

/** BloodHound's AuditLog (`cmd/api/src/model/audit.go`): plain values, `fields` an object. */
export const AuditLogSchema = Type.Object(
  {
    id: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    actor_id: Type.String({ description: 'user or collection client id; empty when nobody was authenticated' }),
    actor_name: Type.String(),
    actor_email: Type.String(),
    action: Type.String(),
    fields: Type.Record(Type.String(), Type.Unknown()),
    request_id: Type.String(),
    source_ip_address: Type.String(),
    status: Type.Union([Type.Literal('intent'), Type.Literal('success'), Type.Literal('failure')]),
    commit_id: Type.String({ format: 'uuid' }),
  },
  { $id: 'AuditLog' },
);

export function toWireAuditLog(row: AuditLogRow) {
  return {
    id: row.id,
    created_at: toRfc3339(row.created_at),
    actor_id: row.actor_id,
    actor_name: row.actor_name,
    actor_email: row.actor_email,
    action: row.action,
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    request_id: row.request_id,
    source_ip_address: row.source_ip_address,
    status: row.status,
    commit_id: row.commit_id,
  };
}
