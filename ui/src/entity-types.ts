/**
 * The entity routes the console opens, as the server's tables declare them: AD entities
 * (`/api/v2/<path>/<object id>` and its related lists; src/modules/entities/entities.table.ts) and
 * Azure entities (`/api/v2/azure/<type>?object_id=` with `related_entity_type`;
 * src/modules/azure/azure.table.ts). Each list: its URL segment (or related_entity_type), the key
 * of its count in the info answer (dotted for nested counts), whether it has a graph form, and
 * whether it is shown only when its count is above zero.
 */
import type { SearchHit } from 'scent/client';
import { toModel, type GraphModel } from './components/graph-model.ts';
import { api } from './session.ts';

export interface EntityList { path: string; label: string; count?: string; listOnly?: boolean; hideEmpty?: boolean }
export interface EntityType { kind: string; label: string; lists: EntityList[]; azure?: boolean }

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

// Azure: `azure/<entity_type>` (the console's name for it; the API path is /api/v2/azure/<entity_type>).
const az = (path: string, label: string, count?: string, hideEmpty = false): EntityList => ({ path, label, count, hideEmpty });
const azInbound = az('inbound-control', 'Inbound object control', 'inbound_object_control');
const azOutbound = az('outbound-control', 'Outbound object control', 'outbound_object_control');
const DESCENDANTS: Array<[path: string, kind: string, label: string]> = [
  ['management-groups', 'AZManagementGroup', 'Management groups'], ['subscriptions', 'AZSubscription', 'Subscriptions'],
  ['resource-groups', 'AZResourceGroup', 'Resource groups'], ['virtual-machines', 'AZVM', 'Virtual machines'],
  ['managed-clusters', 'AZManagedCluster', 'Managed clusters'], ['vm-scale-sets', 'AZVMScaleSet', 'VM scale sets'],
  ['container-registries', 'AZContainerRegistry', 'Container registries'], ['web-apps', 'AZWebApp', 'Web apps'],
  ['automation-accounts', 'AZAutomationAccount', 'Automation accounts'], ['logic-apps', 'AZLogicApp', 'Logic apps'],
  ['function-apps', 'AZFunctionApp', 'Function apps'], ['key-vaults', 'AZKeyVault', 'Key vaults'], ['users', 'AZUser', 'Users'],
  ['groups', 'AZGroup', 'Groups'], ['applications', 'AZApp', 'Applications'], ['service-principals', 'AZServicePrincipal', 'Service principals'],
  ['devices', 'AZDevice', 'Devices'],
];
/** A container's lists: each kind of descendant it holds (over AZContains), then its inbound control. */
const azContainer = [...DESCENDANTS.map(([path, kind, label]) => az(`descendent-${path}`, label, `descendents.descendent_counts.${kind}`, true)), azInbound];
const azType = (kind: string, label: string, lists: EntityList[]): EntityType => ({ kind, label: `Azure ${label}`, lists, azure: true });
const inboundOnly = (kind: string, label: string) => azType(kind, label, [azInbound]);

export const AZURE_TYPES: Record<string, EntityType> = {
  'azure/users': azType('AZUser', 'user', [az('group-membership', 'Group memberships', 'group_membership'), az('roles', 'Roles', 'roles'),
    az('outbound-execution-privileges', 'Execution privileges', 'execution_privileges'), azOutbound, azInbound]),
  'azure/groups': azType('AZGroup', 'group', [az('group-members', 'Members', 'group_members'), az('group-membership', 'Group memberships', 'group_membership'),
    az('roles', 'Roles', 'roles'), azOutbound, azInbound]),
  'azure/tenants': azType('AZTenant', 'tenant', azContainer),
  'azure/management-groups': azType('AZManagementGroup', 'management group', azContainer),
  'azure/subscriptions': azType('AZSubscription', 'subscription', azContainer),
  'azure/resource-groups': azType('AZResourceGroup', 'resource group', azContainer),
  'azure/vms': azType('AZVM', 'virtual machine', [az('inbound-execution-privileges', 'Inbound execution privileges', 'inboundExecutionPrivileges'), azInbound]),
  'azure/devices': azType('AZDevice', 'device', [az('inbound-execution-privileges', 'Inbound execution privileges', 'inboundExecutionPrivileges'), azInbound]),
  'azure/key-vaults': azType('AZKeyVault', 'key vault', [az('key-readers', 'Key readers', 'Readers.KeyReaders'), az('certificate-readers', 'Certificate readers', 'Readers.CertificateReaders'),
    az('secret-readers', 'Secret readers', 'Readers.SecretReaders'), az('all-readers', 'All readers', 'Readers.AllReaders'), azInbound]),
  'azure/service-principals': azType('AZServicePrincipal', 'service principal', [az('roles', 'Roles', 'roles'), azInbound, azOutbound,
    az('inbound-abusable-app-role-assignments', 'Inbound abusable app role assignments', 'inbound-abusable-app-role-assignments'),
    az('outbound-abusable-app-role-assignments', 'Outbound abusable app role assignments', 'outbound-abusable-app-role-assignments')]),
  'azure/roles': azType('AZRole', 'role', [az('active-assignments', 'Active assignments', 'active_assignments'), az('pim-assignments', 'PIM assignments', 'pim_assignments'),
    az('role-approvers', 'Role approvers', 'approvers')]),
  'azure/managed-clusters': inboundOnly('AZManagedCluster', 'managed cluster'),
  'azure/container-registries': inboundOnly('AZContainerRegistry', 'container registry'),
  'azure/web-apps': inboundOnly('AZWebApp', 'web app'),
  'azure/logic-apps': inboundOnly('AZLogicApp', 'logic app'),
  'azure/automation-accounts': inboundOnly('AZAutomationAccount', 'automation account'),
  'azure/function-apps': inboundOnly('AZFunctionApp', 'function app'),
  'azure/applications': inboundOnly('AZApp', 'application'),
  'azure/vm-scale-sets': inboundOnly('AZVMScaleSet', 'VM scale set'),
  'azure/az-base': azType('AZBase', 'object', [azOutbound]),
};

/** Every entity type the console opens, AD then Azure. */
export const ALL_TYPES: Record<string, EntityType> = { ...ENTITY_TYPES, ...AZURE_TYPES };

/** The entity type for a node's primary kind: 'base' for other AD kinds, 'azure/az-base' for other Azure kinds. */
export const typeOfKind = (kind: string | undefined, kinds: string[] = []): string =>
  Object.entries(ALL_TYPES).find(([, t]) => t.kind === kind)?.[0]
  ?? (kind?.startsWith('AZ') || kinds.includes('AZBase') ? 'azure/az-base' : 'base');

export const typeOfHit = (hit: SearchHit): string => typeOfKind(hit.type);

/** A count from an info answer by its (dotted) key; undefined when the answer has none. */
export function countIn(info: Record<string, unknown>, key: string): number | undefined {
  let v: unknown = info;
  for (const part of key.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  if (typeof v === 'number') return v;
  // A descendant kind the container does not hold is absent from its counts: none.
  return key.startsWith('descendents.') && info.descendents ? 0 : undefined;
}

/** One row of a related list, whichever route answered it. */
export interface RelatedRow { objectId: string; name: string; kind: string; kinds: string[] }

const apiType = (type: string) => type.slice('azure/'.length);

/** An entity's info answer: `props`, `kind` and its counts. */
export async function entityInfo(type: string, objectId: string): Promise<{ props: Record<string, unknown>; kind?: string } & Record<string, unknown>> {
  return ALL_TYPES[type].azure ? api.getAzureEntity(apiType(type), objectId) : api.getEntity(type, objectId);
}

/** A page of a related list. */
export async function relatedPage(type: string, objectId: string, list: string, skip: number, limit: number): Promise<{ items: RelatedRow[]; count: number }> {
  if (ALL_TYPES[type].azure) {
    const page = await api.listAzureRelated(apiType(type), objectId, list, { skip, limit });
    return {
      count: page.count ?? 0,
      items: page.data.map((n) => ({ objectId: String(n.props.objectid ?? ''), name: String(n.props.name ?? n.props.displayname ?? n.props.objectid ?? ''), kind: n.kind, kinds: n.kinds })),
    };
  }
  const page = await api.listEntityRelated(type, objectId, list, { skip, limit });
  return { count: page.count ?? 0, items: page.data.map((r) => ({ objectId: r.objectID, name: r.name || r.objectID, kind: r.label, kinds: [r.label] })) };
}

/** A related list as a graph model (the node and the list, with the relationships between them). */
export async function relatedGraph(type: string, objectId: string, list: string): Promise<GraphModel> {
  return toModel(ALL_TYPES[type].azure ? await api.getAzureRelatedGraph(apiType(type), objectId, list) : await api.getEntityRelatedGraph(type, objectId, list));
}
