import { Type, type Static } from '@sinclair/typebox';
import type { AuthTokenRow } from '../../auth/tokens.tables.ts';
import { toRfc3339 } from '../../db/time.ts';
import { recordFields, recordTimes, Timestamp } from '../../http/envelope.ts';

/** Wire shape of an API token, BloodHound's AuthToken (the key only in the create answer). */
export const AuthTokenSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    user_id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    key: Type.Optional(Type.String({ description: 'the HMAC key; returned once, by the create call' })),
    hmac_method: Type.String({ enum: ['hmac-sha2-256'] }),
    last_access: Timestamp,
    ...recordFields,
  },
  { title: 'AuthToken' },
);

export const CreateTokenBody = Type.Object({
  token_name: Type.String({ minLength: 1, description: 'a name to recognise the token by' }),
  user_id: Type.Optional(Type.String({ format: 'uuid', description: 'owner; default the caller (others need auth/ManageUsers)' })),
});
export type CreateTokenBody = Static<typeof CreateTokenBody>;

export function toWireToken(row: AuthTokenRow, key?: string) {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    ...(key === undefined ? {} : { key }),
    hmac_method: row.hmac_method,
    last_access: toRfc3339(row.last_access),
    ...recordTimes(row),
  };
}
