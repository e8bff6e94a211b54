import { Type, type Static } from '@sinclair/typebox';
import { Text } from '../jobs/jobs.schema.ts';
import { recordFields, recordTimes } from '../../http/envelope.ts';
import type { ClientEventRow } from '../jobs/collection.tables.ts';
import { DomainsField, OusField, switchFields, wireSwitches, wireTargets, type Hydration } from '../jobs/jobs.schema.ts';
import { SWITCH_NAMES } from '../jobs/collection.tables.ts';

/** Spec 2.12: a scheduled collection event (+ title and the common record fields). */
export const EventSchema = Type.Object(
  {
    id: Type.Integer(),
    client_id: Type.String({ format: 'uuid' }),
    title: Type.String(),
    rrule: Type.String({ description: 'RFC 5545: DTSTART line + RRULE line' }),
    ...switchFields,
    ous: OusField,
    domains: DomainsField,
    ...recordFields,
  },
  { $id: 'CollectionEvent' },
);

const OptionalBoolean = Type.Optional(Type.Boolean());
const optionalSwitches = Object.fromEntries(SWITCH_NAMES.map((n) => [n, OptionalBoolean])) as Record<
  (typeof SWITCH_NAMES)[number], typeof OptionalBoolean>;

const ObjectId = Type.String({ format: 'object-id', minLength: 1, maxLength: 500, examples: ['1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0'] });

/** Targets and switches, shared by event bodies and one-off job bodies. */
export const targetFields = {
  ...optionalSwitches,
  ous: Type.Optional(Type.Array(ObjectId, { maxItems: 1000, description: 'OU objectids' })),
  domains: Type.Optional(Type.Array(ObjectId, { maxItems: 1000, description: 'domain objectids' })),
};

export const EventBody = Type.Object({
  client_id: Type.String({ format: 'uuid' }),
  rrule: Text({ minLength: 1, maxLength: 2000, description: 'RFC 5545 RRULE, optionally preceded by a DTSTART line' }),
  title: Type.Optional(Text({ maxLength: 500 })),
  ...targetFields,
});
export type EventBody = Static<typeof EventBody>;

export const eventSchemas = [EventSchema];

export function toWireEvent(row: ClientEventRow, h: Hydration) {
  return {
    id: row.id,
    client_id: row.client_id,
    title: row.title,
    rrule: row.rrule,
    ...wireSwitches(row),
    ...wireTargets(row, h),
    ...recordTimes(row),
  };
}
