/** Kind names of BloodHound's schema (graphschema ad / azure) and the `relationship_kinds` filter. */
import { AD_RELATIONSHIPS, AZURE_RELATIONSHIPS } from '../entities/kinds.ts';
import { badRequest, Messages } from '../../http/errors.ts';

export const AD_NODE_KINDS = [
  'Base', 'User', 'Computer', 'Group', 'GPO', 'OU', 'Container', 'Domain', 'ADLocalGroup', 'ADLocalUser', 'AIACA', 'RootCA',
  'EnterpriseCA', 'NTAuthStore', 'CertTemplate', 'IssuancePolicy',
];
export const AZURE_NODE_KINDS = [
  'AZBase', 'AZVMScaleSet', 'AZApp', 'AZRole', 'AZDevice', 'AZFunctionApp', 'AZGroup', 'AZKeyVault', 'AZManagementGroup',
  'AZResourceGroup', 'AZServicePrincipal', 'AZSubscription', 'AZTenant', 'AZUser', 'AZVM', 'AZManagedCluster',
  'AZContainerRegistry', 'AZWebApp', 'AZLogicApp', 'AZAutomationAccount',
];

/** Every AD and Azure relationship kind: what a shortest path may walk when no filter is given. */
export const SCHEMA_RELATIONSHIPS = [...AD_RELATIONSHIPS, ...AZURE_RELATIONSHIPS];

const PATTERN = /^(in|nin):(\w+)(,\s*\w+)*$/;

/**
 * `relationship_kinds=in:K1,K2` (only these) or `nin:K1,K2` (every schema kind but these); absent:
 * every schema kind. A kind must be a schema relationship kind or one the graph holds (OpenGraph).
 */
export function relationshipKinds(param: string | undefined, graphKinds: ReadonlySet<string>): string[] {
  if (param === undefined) return SCHEMA_RELATIONSHIPS;
  if (!PATTERN.test(param)) throw badRequest(Messages.malformedParam('relationship_kinds'));
  const [op, list] = [param.slice(0, param.indexOf(':')), param.slice(param.indexOf(':') + 1)];
  const kinds = list.split(',').map((k) => k.trim());
  const valid = new Set(SCHEMA_RELATIONSHIPS);
  for (const k of kinds) if (!valid.has(k) && !graphKinds.has(k)) throw badRequest(Messages.malformedParam('relationship_kinds'));
  return op === 'in' ? kinds : SCHEMA_RELATIONSHIPS.filter((k) => !kinds.includes(k));
}
