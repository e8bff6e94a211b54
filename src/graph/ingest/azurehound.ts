/**
 * AzureHound: {"meta": {"type": "azure", ...}, "data": [{"kind": "AZUser", "data": {...}}, ...]}.
 * Entities become AZ* nodes (kinds [AZKind, "AZBase"], environment = tenant id); the list and
 * relationship wrappers become edges (AZContains, AZMemberOf, AZOwns, AZHasRole, AZRunsAs, ...).
 */
import { cleanProperties, IngestError, normId, type Sink } from './sink.ts';

type Obj = Record<string, unknown>;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const az = (kind: string) => [kind, 'AZBase'];

/** Microsoft Graph @odata.type → AZ kind. */
const ODATA_KINDS: Record<string, string> = {
  '#microsoft.graph.user': 'AZUser', '#microsoft.graph.group': 'AZGroup',
  '#microsoft.graph.servicePrincipal': 'AZServicePrincipal', '#microsoft.graph.device': 'AZDevice',
  '#microsoft.graph.application': 'AZApp',
};

/** Well-known Azure RBAC role definition ids → the edge BloodHound draws. */
const RBAC_EDGES: Record<string, string> = {
  '8e3af657-a8ff-443c-a75c-2fe8c4bcb635': 'AZOwns',
  '18d7d88d-d35e-4fb5-a5c3-7773c20a72d9': 'AZUserAccessAdministrator',
  'b24988ac-6180-42a0-ab88-20f7382dd24c': 'AZContributor',
  '9980e02c-c2be-4d73-94e8-173b1dc7cf3c': 'AZVMContributor',
  'f25e0fa2-a7c8-4377-a976-54943a77a395': 'AZKeyVaultContributor',
};

/** Entity kinds and how each names its tenant and display name. */
const ENTITIES = new Set([
  'AZTenant', 'AZUser', 'AZGroup', 'AZApp', 'AZServicePrincipal', 'AZDevice', 'AZManagementGroup',
  'AZSubscription', 'AZResourceGroup', 'AZVM', 'AZKeyVault', 'AZRole',
]);

function entityId(kind: string, d: Obj): string | null {
  if (kind === 'AZTenant') return normId(d.tenantId ?? d.id);
  if (kind === 'AZApp') return normId(d.appId ?? d.id);
  if (kind === 'AZRole') return normId(d.templateId ?? d.id) && normId(`${d.templateId ?? d.id}@${d.tenantId}`);
  return normId(d.id);
}

function member(raw: unknown): { objectid: string; kinds: string[] } | null {
  const m = raw as Obj | null;
  const id = normId(m?.id);
  if (!id) return null;
  const kind = ODATA_KINDS[String(m?.['@odata.type'] ?? '')];
  return { objectid: id, kinds: kind ? az(kind) : ['AZBase'] };
}

export function convertAzureHound(raw: unknown, sink: Sink): void {
  const w = raw as { kind?: unknown; data?: unknown } | null;
  if (!w || typeof w.kind !== 'string' || !w.data || typeof w.data !== 'object') {
    throw new IngestError('an AzureHound entry must be {"kind": "AZ...", "data": {...}}');
  }
  const kind = w.kind;
  const d = w.data as Obj;
  const tenant = normId(d.tenantId ?? (d.properties as Obj | undefined)?.tenantId);
  const tenantRef = tenant ? { objectid: tenant, kinds: az('AZTenant') } : null;
  const edge = (start: { objectid: string; kinds?: string[] } | null, end: { objectid: string; kinds?: string[] } | null, k: string, properties?: Obj) => {
    if (start?.objectid && end?.objectid) sink.edge({ start, end, kind: k, properties });
  };

  if (ENTITIES.has(kind)) {
    const id = entityId(kind, d);
    if (!id) throw new IngestError(`an ${kind} entry has no id`);
    const props = cleanProperties({ ...flatten(d.properties), ...flatten(d) });
    const name = str(d.displayName) ?? str(d.name) ?? str((d.properties as Obj | undefined)?.displayName) ?? str(d.userPrincipalName);
    props.objectid = id;
    if (tenant) props.tenantid = tenant;
    sink.node({ objectid: id, kinds: az(kind), name: name?.toUpperCase() ?? null, environmentId: kind === 'AZTenant' ? id : tenant, properties: props, sourceKind: 'AZBase' });
    const self = { objectid: id, kinds: az(kind) };
    if (['AZUser', 'AZGroup', 'AZApp', 'AZServicePrincipal', 'AZDevice', 'AZSubscription'].includes(kind)) edge(tenantRef, self, 'AZContains');
    if (kind === 'AZServicePrincipal') edge({ objectid: normId(d.appId) ?? '', kinds: az('AZApp') }, self, 'AZRunsAs');
    if (kind === 'AZResourceGroup') edge({ objectid: normId(`/subscriptions/${d.subscriptionId}`)!, kinds: az('AZSubscription') }, self, 'AZContains');
    if (kind === 'AZVM') edge({ objectid: normId(d.resourceGroupId ?? d.resourceGroup) ?? '', kinds: az('AZResourceGroup') }, self, 'AZContains');
    if (kind === 'AZKeyVault') edge({ objectid: normId(d.resourceGroup ?? d.resourceGroupId) ?? '', kinds: az('AZResourceGroup') }, self, 'AZContains');
    return;
  }
  switch (kind) {
    case 'AZGroupMember':
      for (const m of arr(d.members)) edge(member((m as Obj).member), { objectid: normId((m as Obj).groupId ?? d.groupId) ?? '', kinds: az('AZGroup') }, 'AZMemberOf');
      return;
    case 'AZGroupOwner': case 'AZAppOwner': case 'AZServicePrincipalOwner': case 'AZDeviceOwner': {
      const target = kind.slice(0, -'Owner'.length);
      const idKey = { AZGroup: 'groupId', AZApp: 'appId', AZServicePrincipal: 'servicePrincipalId', AZDevice: 'deviceId' }[target]!;
      for (const o of arr(d.owners)) edge(member((o as Obj).owner), { objectid: normId((o as Obj)[idKey] ?? d[idKey]) ?? '', kinds: az(target) }, 'AZOwns');
      return;
    }
    case 'AZManagementGroupDescendant': {
      const child = normId(d.id);
      const t = String(d.type ?? '').toLowerCase();
      const childKind = t.includes('subscriptions') ? 'AZSubscription' : 'AZManagementGroup';
      edge({ objectid: normId(d.parentId ?? (d.properties as Obj | undefined)?.parent) ?? '', kinds: az('AZManagementGroup') }, child ? { objectid: child, kinds: az(childKind) } : null, 'AZContains');
      return;
    }
    case 'AZRoleAssignment':
      for (const a of arr(d.roleAssignments)) {
        const ra = a as Obj;
        const role = normId(`${ra.roleDefinitionId ?? d.roleDefinitionId}@${d.tenantId}`);
        edge({ objectid: normId(ra.principalId) ?? '', kinds: ['AZBase'] }, role ? { objectid: role, kinds: az('AZRole') } : null, 'AZHasRole', { scope: ra.directoryScopeId ?? null });
      }
      return;
    default:
      if (kind.endsWith('RoleAssignment')) return rbacAssignments(kind, d, sink);
      // Other AzureHound kinds (e.g. policies, automation accounts) carry no entity of this model yet.
      return;
  }
}

/** AZSubscriptionRoleAssignment, AZVMRoleAssignment, ...: well-known RBAC roles → edges to the scope. */
function rbacAssignments(kind: string, d: Obj, sink: Sink): void {
  const targetKind = kind.slice(0, -'RoleAssignment'.length);
  const idKey = `${targetKind.slice(2, 3).toLowerCase()}${targetKind.slice(3)}Id`;
  for (const a of arr(d.roleAssignments)) {
    const ra = a as Obj;
    const props = ((ra.roleAssignment ?? ra.assignee ?? ra) as Obj).properties as Obj | undefined;
    const roleDef = String(props?.roleDefinitionId ?? '').split('/').pop()!.toLowerCase();
    const edgeKind = RBAC_EDGES[roleDef];
    const principal = normId(props?.principalId);
    const target = normId(ra[idKey] ?? d[idKey]);
    if (edgeKind && principal && target) {
      sink.edge({ start: { objectid: principal, kinds: ['AZBase'] }, end: { objectid: target, kinds: az(targetKind) }, kind: edgeKind });
    }
  }
}

/** Flat copy: nested objects are left out (graph properties are flat), arrays of primitives kept. */
function flatten(v: unknown): Obj {
  const out: Obj = {};
  if (!v || typeof v !== 'object') return out;
  for (const [k, x] of Object.entries(v as Obj)) {
    if (x === null || typeof x !== 'object') out[k.toLowerCase()] = x;
    else if (Array.isArray(x) && x.every((e) => e === null || typeof e !== 'object')) out[k.toLowerCase()] = x;
  }
  return out;
}
