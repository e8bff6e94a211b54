/**
 * Permissions (authority/name) and the built-in role → permission map, in ONE place. The first
 * migration seeds the database with the same data (it may not import this file); a test proves
 * the database and this map agree.
 */
export const PERMISSIONS = [
  'app/ReadAppConfig', 'app/WriteAppConfig',
  'risks/GenerateReport', 'risks/ManageRisks',
  'audit_log/Read',
  'auth/AcceptEULA', 'auth/CreateToken', 'auth/ManageProviders', 'auth/ManageSelf', 'auth/ManageUsers',
  'auth/ReadUsers',
  'clients/Manage', 'clients/Read', 'clients/Tasking',
  'collection/ManageJobs',
  'graphdb/Ingest', 'graphdb/Mutate', 'graphdb/Read', 'graphdb/Write',
  'saved_queries/Read', 'saved_queries/Write',
  'db/Wipe',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_NAMES = ['Administrator', 'Power User', 'User', 'Read-Only', 'Upload-Only'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

export const ROLE_PERMISSIONS: Record<RoleName, readonly Permission[]> = {
  Administrator: PERMISSIONS,
  'Power User': [
    'risks/GenerateReport', 'risks/ManageRisks', 'auth/CreateToken', 'auth/ManageSelf', 'clients/Manage',
    'clients/Read', 'clients/Tasking', 'collection/ManageJobs', 'graphdb/Ingest', 'graphdb/Write',
    'graphdb/Read', 'graphdb/Mutate', 'saved_queries/Read', 'saved_queries/Write',
  ],
  User: [
    'app/ReadAppConfig', 'risks/GenerateReport', 'auth/CreateToken', 'auth/ManageSelf', 'clients/Read',
    'graphdb/Read', 'saved_queries/Read', 'saved_queries/Write',
  ],
  'Read-Only': [
    'app/ReadAppConfig', 'risks/GenerateReport', 'auth/CreateToken', 'auth/ManageSelf', 'graphdb/Read',
    'saved_queries/Read',
  ],
  'Upload-Only': ['clients/Tasking', 'graphdb/Ingest'],
};

export function isRoleName(value: string): value is RoleName {
  return (ROLE_NAMES as readonly string[]).includes(value);
}
