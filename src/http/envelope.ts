import { Type, type TSchema } from '@sinclair/typebox';
import { toRfc3339 } from '../db/time.ts';

/** The error body of CONTRACT §1. */
export interface ErrorBody {
  http_status: number;
  timestamp: string;
  request_id: string;
  errors: Array<{ context: string; message: string }>;
}

export function errorBody(status: number, requestId: string, messages: string[], context = ''): ErrorBody {
  return {
    http_status: status,
    timestamp: new Date().toISOString(),
    request_id: requestId,
    errors: messages.map((message) => ({ context, message })),
  };
}

export const ErrorSchema = Type.Object(
  {
    http_status: Type.Integer(),
    timestamp: Type.String({ format: 'date-time' }),
    request_id: Type.String({ format: 'uuid' }),
    errors: Type.Array(Type.Object({ context: Type.String(), message: Type.String() })),
  },
  { $id: 'ErrorResponse', title: 'Error' },
);

/** `{ data: T }` */
export const DataEnvelope = <T extends TSchema>(data: T) => Type.Object({ data });

/** `{ count, skip, limit, data: T }` (spec 2.15) */
export const PageEnvelope = <T extends TSchema>(data: T) =>
  Type.Object({
    count: Type.Integer({ minimum: 0 }),
    skip: Type.Integer({ minimum: 0 }),
    limit: Type.Integer({ minimum: 0 }),
    data,
  });

/* ---- Nullable wrappers of spec 2.1 ---- */

export const Timestamp = Type.String({ format: 'date-time' });
export const NullTime = Type.Object({ time: Timestamp, valid: Type.Boolean() });
export const NullInt32 = Type.Object({ int32: Type.Integer(), valid: Type.Boolean() });
export const NullString = Type.Object({ string: Type.String(), valid: Type.Boolean() });

export const nullTime = (micros: number | null | undefined) =>
  micros === null || micros === undefined ? { time: toRfc3339(null), valid: false } : { time: toRfc3339(micros), valid: true };
export const nullInt32 = (value: number | null | undefined) =>
  value === null || value === undefined ? { int32: 0, valid: false } : { int32: value, valid: true };
export const nullString = (value: string | null | undefined) =>
  value === null || value === undefined ? { string: '', valid: false } : { string: value, valid: true };

/** id, created_at, updated_at, deleted_at of spec 2.2 */
export const recordFields = {
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: NullTime,
};
export const recordTimes = (row: { created_at: number; updated_at: number; deleted_at: number | null }) => ({
  created_at: toRfc3339(row.created_at),
  updated_at: toRfc3339(row.updated_at),
  deleted_at: nullTime(row.deleted_at),
});

/** Common error responses for route schemas (OpenAPI). */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, Type.Ref(ErrorSchema)]));

/* ---- BloodHound's plain nullable values (CONTRACT §6: resources the seed does not describe) ---- */

/** The value, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** A stored microsecond timestamp as RFC-3339, or null. */
export const timeOrNull = (micros: number | null | undefined) => (micros === null || micros === undefined ? null : toRfc3339(micros));
/** A stored 0/1 as a boolean, or null. */
export const boolOrNull = (value: number | null | undefined) => (value === null || value === undefined ? null : value === 1);
