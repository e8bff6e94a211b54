/** FROZEN: users, roles, permissions, auth secrets, sessions, SSO providers, settings. */
import type { Kysely } from 'kysely';
import { bool, withId, withTimestamps } from './portable.ts';

const PERMISSIONS: Array<[string, string]> = [
  ['app', 'ReadAppConfig'], ['app', 'WriteAppConfig'],
  ['risks', 'GenerateReport'], ['risks', 'ManageRisks'],
  ['audit_log', 'Read'],
  ['auth', 'AcceptEULA'], ['auth', 'CreateToken'], ['auth', 'ManageProviders'], ['auth', 'ManageSelf'],
  ['auth', 'ManageUsers'], ['auth', 'ReadUsers'],
  ['clients', 'Manage'], ['clients', 'Read'], ['clients', 'Tasking'],
  ['collection', 'ManageJobs'],
  ['graphdb', 'Ingest'], ['graphdb', 'Mutate'], ['graphdb', 'Read'], ['graphdb', 'Write'],
  ['saved_queries', 'Read'], ['saved_queries', 'Write'],
  ['db', 'Wipe'],
];

const ROLES: Array<[string, string, string[] | 'all']> = [
  ['Administrator', 'Can manage users, clients, and application configuration', 'all'],
  ['Power User', 'Can upload data, manage clients, and perform any action in the UI except user management', [
    'risks/GenerateReport', 'risks/ManageRisks', 'auth/CreateToken', 'auth/ManageSelf', 'clients/Manage',
    'clients/Read', 'clients/Tasking', 'collection/ManageJobs', 'graphdb/Ingest', 'graphdb/Write',
    'graphdb/Read', 'graphdb/Mutate', 'saved_queries/Read', 'saved_queries/Write',
  ]],
  ['User', 'Can read data, modify asset group memberships', [
    'app/ReadAppConfig', 'risks/GenerateReport', 'auth/CreateToken', 'auth/ManageSelf', 'clients/Read',
    'graphdb/Read', 'saved_queries/Read', 'saved_queries/Write',
  ]],
  ['Read-Only', 'Used for integrations', [
    'app/ReadAppConfig', 'risks/GenerateReport', 'auth/CreateToken', 'auth/ManageSelf', 'graphdb/Read',
    'saved_queries/Read',
  ]],
  ['Upload-Only', 'Used for data collection clients, can post data but cannot read data', [
    'clients/Tasking', 'graphdb/Ingest',
  ]],
];

export async function up(db: Kysely<any>): Promise<void> {
  await withTimestamps(withId(db, db.schema.createTable('permissions')))
    .addColumn('authority', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addUniqueConstraint('permissions_authority_name', ['authority', 'name'])
    .execute();
  await withTimestamps(withId(db, db.schema.createTable('roles')))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createTable('roles_permissions')
    .addColumn('role_id', 'bigint', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addColumn('permission_id', 'bigint', (c) => c.notNull().references('permissions.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('roles_permissions_pk', ['role_id', 'permission_id'])
    .execute();

  await withTimestamps(withId(db, db.schema.createTable('sso_providers')))
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await withTimestamps(withId(db, db.schema.createTable('oidc_providers')))
    .addColumn('sso_provider_id', 'bigint', (c) =>
      c.notNull().unique().references('sso_providers.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .execute();

  await withTimestamps(db.schema.createTable('users'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('principal_name', 'text', (c) => c.notNull().unique())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('email_address', 'text')
    .addColumn('sso_provider_id', 'bigint', (c) => c.references('sso_providers.id').onDelete('set null'))
    .addColumn('saml_provider_id', 'bigint')
    .addColumn('last_login', 'bigint')
    .addColumn('is_disabled', 'integer', bool)
    .addColumn('eula_accepted', 'integer', bool)
    .execute();
  await db.schema.createIndex('users_sso_provider_id').on('users').column('sso_provider_id').execute();
  await db.schema.createTable('users_roles')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role_id', 'bigint', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('users_roles_pk', ['user_id', 'role_id'])
    .execute();
  await withTimestamps(withId(db, db.schema.createTable('auth_secrets')))
    .addColumn('user_id', 'text', (c) => c.notNull().unique().references('users.id').onDelete('cascade'))
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('digest_method', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('totp_activated', 'integer', bool)
    .execute();

  // A session is one issued JWT (its jti). Principal: a user, or (enterprise) a collection client.
  await db.schema.createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('client_id', 'text')
    .addColumn('auth_method', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_client_id').on('sessions').column('client_id').execute();

  await db.schema.createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  const now = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  const stamp = { created_at: now, updated_at: now };
  await db.insertInto('permissions')
    .values(PERMISSIONS.map(([authority, name]) => ({ authority, name, ...stamp })))
    .execute();
  await db.insertInto('roles')
    .values(ROLES.map(([name, description]) => ({ name, description, ...stamp })))
    .execute();
  const perms = await db.selectFrom('permissions').select(['id', 'authority', 'name']).execute();
  const roles = await db.selectFrom('roles').select(['id', 'name']).execute();
  const links: Array<{ role_id: number; permission_id: number }> = [];
  for (const [roleName, , granted] of ROLES) {
    const role = roles.find((r) => r.name === roleName)!;
    for (const p of perms) {
      if (granted === 'all' || granted.includes(`${p.authority}/${p.name}`)) {
        links.push({ role_id: Number(role.id), permission_id: Number(p.id) });
      }
    }
  }
  await db.insertInto('roles_permissions').values(links).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'settings', 'sessions', 'auth_secrets', 'users_roles', 'users', 'oidc_providers', 'sso_providers',
    'roles_permissions', 'roles', 'permissions',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
