/**
 * GET /api/v2/azure/{entity_type} as declaration tables (reference §3.5; BloodHound
 * cmd/api/src/api/v2/azure.go): which counts each entity type's info answer carries, and the
 * related lists any Azure node can be asked for (`related_entity_type`).
 */
import type { Traversal } from '../entities/traversals.ts';
import * as A from './azure.traversals.ts';

const DESCENDANT_KINDS: Record<string, string> = {
  users: 'AZUser', groups: 'AZGroup', 'management-groups': 'AZManagementGroup', subscriptions: 'AZSubscription',
  'resource-groups': 'AZResourceGroup', 'virtual-machines': 'AZVM', 'managed-clusters': 'AZManagedCluster', 'vm-scale-sets': 'AZVMScaleSet',
  'container-registries': 'AZContainerRegistry', 'web-apps': 'AZWebApp', 'automation-accounts': 'AZAutomationAccount',
  'logic-apps': 'AZLogicApp', 'function-apps': 'AZFunctionApp', 'key-vaults': 'AZKeyVault', applications: 'AZApp',
  'service-principals': 'AZServicePrincipal', devices: 'AZDevice',
};

export const RELATED: Record<string, Traversal> = {
  ...Object.fromEntries(Object.entries(DESCENDANT_KINDS).map(([path, kind]) => [`descendent-${path}`, A.descendants(kind)])),
  'active-assignments': A.activeAssignments,
  'pim-assignments': A.pimAssignments,
  'role-approvers': A.roleApprovers,
  'group-members': A.groupMembers,
  'group-membership': A.groupMembership,
  roles: A.roles,
  'inbound-control': A.inboundControl,
  'outbound-control': A.outboundControl,
  'inbound-execution-privileges': A.executionPrivileges('inbound'),
  'outbound-execution-privileges': A.executionPrivileges('outbound'),
  'inbound-abusable-app-role-assignments': A.abusableAppRoles('inbound'),
  'outbound-abusable-app-role-assignments': A.abusableAppRoles('outbound'),
  'key-readers': A.vaultReaders('AZGetKeys'),
  'certificate-readers': A.vaultReaders('AZGetCertificates'),
  'secret-readers': A.vaultReaders('AZGetSecrets'),
  'all-readers': A.vaultReaders('AZGetKeys', 'AZGetCertificates', 'AZGetSecrets'),
};

/** An info answer's count field: the size of a related list, or one of the two grouped fields. */
export type CountField = [key: string, related: keyof typeof RELATED] | ['descendents' | 'Readers', null];

const inbound: CountField = ['inbound_object_control', 'inbound-control'];
const outbound: CountField = ['outbound_object_control', 'outbound-control'];
const container: CountField[] = [['descendents', null], inbound];

export const AZURE_TYPES: Record<string, CountField[]> = {
  'az-base': [outbound],
  users: [['group_membership', 'group-membership'], ['roles', 'roles'], ['execution_privileges', 'outbound-execution-privileges'], outbound, inbound],
  groups: [['roles', 'roles'], ['group_members', 'group-members'], ['group_membership', 'group-membership'], outbound, inbound],
  tenants: container,
  'management-groups': container,
  subscriptions: container,
  'resource-groups': container,
  vms: [['inboundExecutionPrivileges', 'inbound-execution-privileges'], inbound],
  devices: [['inboundExecutionPrivileges', 'inbound-execution-privileges'], inbound],
  'key-vaults': [['Readers', null], inbound],
  'service-principals': [
    ['roles', 'roles'], inbound, outbound,
    ['inbound-abusable-app-role-assignments', 'inbound-abusable-app-role-assignments'],
    ['outbound-abusable-app-role-assignments', 'outbound-abusable-app-role-assignments'],
  ],
  roles: [['active_assignments', 'active-assignments'], ['pim_assignments', 'pim-assignments'], ['approvers', 'role-approvers']],
  ...Object.fromEntries(['managed-clusters', 'container-registries', 'web-apps', 'logic-apps', 'automation-accounts', 'function-apps', 'applications', 'vm-scale-sets']
    .map((t) => [t, [inbound]])),
};

/** The key-vault Readers object: field → related list. */
export const READERS: Record<string, keyof typeof RELATED> = {
  KeyReaders: 'key-readers', CertificateReaders: 'certificate-readers', SecretReaders: 'secret-readers', AllReaders: 'all-readers',
};
