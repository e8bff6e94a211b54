import { Type } from '@sinclair/typebox';
import type { AuthSecretRow, PermissionRow, RoleRow, UserRow } from '../../db/database.ts';
import { toRfc3339 } from '../../db/time.ts';
import { NullInt32, NullString, Timestamp, nullInt32, nullString, recordFields, recordTimes } from '../../http/envelope.ts';

/** Wire shapes of spec 2.3–2.5 and the one mapper from rows to them. */
export const PermissionSchema = Type.Object(
  { id: Type.Integer(), ...recordFields, authority: Type.String(), name: Type.String() },
  { $id: 'Permission' },
);

export const RoleSchema = Type.Object(
  {
    id: Type.Integer(),
    ...recordFields,
    name: Type.String(),
    description: Type.String(),
    permissions: Type.Array(Type.Ref(PermissionSchema)),
  },
  { $id: 'Role' },
);

export const AuthSecretSchema = Type.Object(
  {
    id: Type.Integer(),
    ...recordFields,
    digest_method: Type.String(),
    expires_at: Timestamp,
    totp_activated: Type.Boolean(),
  },
  { $id: 'AuthSecret' },
);

export const UserSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    ...recordFields,
    saml_provider_id: NullInt32,
    sso_provider_id: NullInt32,
    AuthSecret: Type.Union([Type.Ref(AuthSecretSchema), Type.Null()]),
    roles: Type.Array(Type.Ref(RoleSchema)),
    first_name: NullString,
    last_name: NullString,
    email_address: NullString,
    principal_name: Type.String(),
    last_login: Timestamp,
    is_disabled: Type.Boolean(),
    eula_accepted: Type.Boolean(),
  },
  { $id: 'User' },
);

export const userSchemas = [PermissionSchema, RoleSchema, AuthSecretSchema, UserSchema];

export interface RoleWithPermissions {
  role: RoleRow;
  permissions: PermissionRow[];
}

export function toWireRole({ role, permissions }: RoleWithPermissions) {
  return {
    id: role.id,
    ...recordTimes(role),
    name: role.name,
    description: role.description,
    permissions: permissions.map((p) => ({ id: p.id, ...recordTimes(p), authority: p.authority, name: p.name })),
  };
}

/** The digest itself never leaves the server. */
export function toWireAuthSecret(secret: AuthSecretRow | undefined) {
  if (!secret) return null;
  return {
    id: secret.id,
    ...recordTimes(secret),
    digest_method: secret.digest_method,
    expires_at: toRfc3339(secret.expires_at),
    totp_activated: secret.totp_activated === 1,
  };
}

export function toWireUser(user: UserRow, roles: RoleWithPermissions[], secret: AuthSecretRow | undefined) {
  return {
    id: user.id,
    ...recordTimes(user),
    saml_provider_id: nullInt32(user.saml_provider_id),
    sso_provider_id: nullInt32(user.sso_provider_id),
    AuthSecret: toWireAuthSecret(secret),
    roles: roles.map(toWireRole),
    first_name: nullString(user.first_name),
    last_name: nullString(user.last_name),
    email_address: nullString(user.email_address),
    principal_name: user.principal_name,
    last_login: toRfc3339(user.last_login),
    is_disabled: user.is_disabled === 1,
    eula_accepted: user.eula_accepted === 1,
  };
}

export type WireUser = ReturnType<typeof toWireUser>;
