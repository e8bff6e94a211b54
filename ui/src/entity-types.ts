/**
 * The entity routes the console opens (`/api/v2/<path>/<object id>` and its related lists), as the
 * server's entity table declares them (src/modules/entities/entities.table.ts, BloodHound's §3.4):
 * each list's URL segment, the key of its count in the info answer, and whether it has a graph form.
 */
export interface EntityList { path: string; label: string; count?: string; listOnly?: boolean }
export interface EntityType { kind: string; label: string; lists: EntityList[] }

const l = (path: string, label: string, count?: string, listOnly = false): EntityList => ({ path, label, count, listOnly });
const controllers = l('controllers', 'Inbound object control', 'controllers');
const controllables = l('controllables', 'Outbound object control', 'controllables');
const localRights = [
  l('admin-rights', 'Local admin rights', 'adminRights'), l('rdp-rights', 'RDP rights', 'rdpRights'),
  l('dcom-rights', 'DCOM rights', 'dcomRights'), l('ps-remote-rights', 'PS remote rights', 'psRemoteRights'),
];

export const ENTITY_TYPES: Record<string, EntityType> = {
  users: { kind: 'User', label: 'User', lists: [
    l('sessions', 'Sessions', 'sessions'), l('memberships', 'Group memberships', 'groupMembership'), ...localRights,
    l('sql-admin-rights', 'SQL admin rights', 'sqlAdmin'), l('constrained-delegation-rights', 'Constrained delegation rights', 'constrainedDelegation'),
    controllables, controllers,
  ] },
  groups: { kind: 'Group', label: 'Group', lists: [
    l('sessions', 'Sessions', 'sessions'), l('members', 'Members', 'members'), l('memberships', 'Group memberships', 'membership'),
    ...localRights, controllables, controllers,
  ] },
  computers: { kind: 'Computer', label: 'Computer', lists: [
    l('sessions', 'Sessions', 'sessions'), l('admin-users', 'Local admins', 'adminUsers'), l('rdp-users', 'RDP users', 'rdpUsers'),
    l('dcom-users', 'DCOM users', 'dcomUsers'), l('ps-remote-users', 'PS remote users', 'psRemoteUsers'), l('sql-admins', 'SQL admins', 'sqlAdminUsers'),
    l('constrained-users', 'Constrained delegation users', 'constrainedUsers'), l('group-membership', 'Group memberships', 'groupMembership'),
    ...localRights, l('constrained-delegation-rights', 'Constrained delegation rights', 'constrainedPrivs'), controllables, controllers,
  ] },
  domains: { kind: 'Domain', label: 'Domain', lists: [
    l('users', 'Users', 'users', true), l('groups', 'Groups', 'groups', true), l('computers', 'Computers', 'computers', true),
    l('ous', 'OUs', 'ous', true), l('gpos', 'GPOs', 'gpos', true), l('foreign-users', 'Foreign users', 'foreignUsers'),
    l('foreign-groups', 'Foreign groups', 'foreignGroups'), l('foreign-admins', 'Foreign admins', 'foreignAdmins'),
    l('foreign-gpo-controllers', 'Foreign GPO controllers', 'foreignGPOControllers'), l('inbound-trusts', 'Inbound trusts', 'inboundTrusts'),
    l('outbound-trusts', 'Outbound trusts', 'outboundTrusts'), controllers, l('dc-syncers', 'DCSync principals', 'dcsyncers'),
    l('linked-gpos', 'Linked GPOs', 'linkedgpos'), l('adcs-escalations', 'AD CS escalations', 'adcs-escalations'),
  ] },
  ous: { kind: 'OU', label: 'OU', lists: [l('gpos', 'GPOs', 'gpos'), l('users', 'Users', 'users'), l('groups', 'Groups', 'groups'), l('computers', 'Computers', 'computers')] },
  gpos: { kind: 'GPO', label: 'GPO', lists: [l('ous', 'OUs', 'ous'), l('computers', 'Computers', 'computers'), l('users', 'Users', 'users'), l('tier-zero', 'Tier Zero objects', 'tierzero'), controllers] },
  containers: { kind: 'Container', label: 'Container', lists: [controllers] },
  aiacas: { kind: 'AIACA', label: 'AIA CA', lists: [controllers, l('pki-hierarchy', 'PKI hierarchy', 'pki-hierarchy')] },
  rootcas: { kind: 'RootCA', label: 'Root CA', lists: [controllers, l('pki-hierarchy', 'PKI hierarchy', 'pki-hierarchy')] },
  enterprisecas: { kind: 'EnterpriseCA', label: 'Enterprise CA', lists: [controllers, l('pki-hierarchy', 'PKI hierarchy', 'pki-hierarchy'), l('published-templates', 'Published templates', 'published-templates')] },
  ntauthstores: { kind: 'NTAuthStore', label: 'NTAuth store', lists: [controllers, l('trusted-cas', 'Trusted CAs', 'trusted-cas')] },
  certtemplates: { kind: 'CertTemplate', label: 'Certificate template', lists: [controllers, l('published-to-cas', 'Published to CAs')] },
  issuancepolicies: { kind: 'IssuancePolicy', label: 'Issuance policy', lists: [controllers, l('linkedtemplates', 'Linked templates', 'linkedTemplates')] },
  base: { kind: 'Base', label: 'Any object', lists: [l('controllers', 'Inbound object control'), controllables] },
};

/** The entity route for a node's primary kind ('base' for any other kind). */
export const typeOfKind = (kind: string | undefined): string => Object.entries(ENTITY_TYPES).find(([, t]) => t.kind === kind)?.[0] ?? 'base';
