/**
 * The related lists of BloodHound's Azure entity panels (reference §3.5; BloodHound
 * packages/go/analysis/azure), over the graph engine, as named traversals like the AD ones.
 */
import type { Edge } from '../../graph/engine/index.ts';
import type { Related, Subject, Traversal } from '../entities/traversals.ts';
import { AZ_APP_ROLE_KINDS } from '../entities/kinds.ts';
import { trueProperty } from '../entities/properties.repository.ts';

/** `azure.ControlRelationships()`. */
export const AZ_CONTROL_KINDS = [
  'AZAvereContributor', 'AZContributor', 'AZOwner', 'AZVMContributor', 'AZAutomationContributor', 'AZKeyVaultContributor', 'AZAddMembers',
  'AZAddSecret', 'AZExecuteCommand', 'AZGlobalAdmin', 'AZGrant', 'AZGrantSelf', 'AZPrivilegedRoleAdmin', 'AZResetPassword',
  'AZUserAccessAdministrator', 'AZOwns', 'AZCloudAppAdmin', 'AZAppAdmin', 'AZAddOwner', 'AZManagedIdentity', 'AZAKSContributor',
  'AZWebsiteContributor', 'AZLogicAppContributor', 'AZMGAddMember', 'AZMGAddOwner', 'AZMGAddSecret', 'AZMGGrantAppRoles', 'AZMGGrantRole',
];
/** `azure.ExecutionPrivileges()`. */
const EXECUTION_KINDS = ['AZVMAdminLogin', 'AZVMContributor', 'AZAvereContributor', 'AZWebsiteContributor', 'AZContributor', 'AZExecuteCommand'];

function terminals(s: Subject, direction: 'inbound' | 'outbound', kinds: readonly string[], maxDepth?: number, first?: (e: Edge) => boolean): Related {
  const w = s.view.walk({ roots: [s.id], direction, kinds, maxDepth, step: first && ((e, depth) => depth > 0 || first(e)) });
  const nodes = w.terminals.filter((id) => id !== s.id);
  return { nodes, edges: () => w.edgesTowards(nodes) };
}

/** Descendants of a kind over AZContains. */
export const descendants = (kind: string): Traversal => (s) => {
  const w = s.view.walk({ roots: [s.id], direction: 'outbound', kinds: ['AZContains'] });
  const nodes = w.reached.filter((id) => id !== s.id && s.view.hasKind(id, kind));
  return { nodes, edges: () => w.edgesTowards(nodes) };
};

export const activeAssignments: Traversal = (s) => terminals(s, 'inbound', ['AZHasRole', 'AZMemberOf']);
export const pimAssignments: Traversal = (s) => terminals(s, 'inbound', ['AZGrant', 'AZGrantSelf', 'AZMemberOf']);
export const roleApprovers: Traversal = (s) => terminals(s, 'inbound', ['AZRoleApprover', 'AZMemberOf'], 2, (e) => e.kind !== 'AZMemberOf');
export const groupMembers: Traversal = (s) => terminals(s, 'inbound', ['AZMemberOf'], 1);
export const groupMembership: Traversal = (s) => terminals(s, 'outbound', ['AZMemberOf'], 1);
export const executionPrivileges = (direction: 'inbound' | 'outbound'): Traversal => (s) => terminals(s, direction, [...EXECUTION_KINDS, 'AZMemberOf']);
export const abusableAppRoles = (direction: 'inbound' | 'outbound'): Traversal => (s) => terminals(s, direction, AZ_APP_ROLE_KINDS);
export const vaultReaders = (...reads: string[]): Traversal => (s) => terminals(s, 'inbound', ['AZMemberOf', 'AZContributor', 'AZOwner', ...reads]);

/** Roles: held directly (AZHasRole), or through one group the entity is a direct member of when that group is role-assignable. */
export const roles: Traversal = async (s) => {
  const { view } = s;
  const direct = view.edgesOf(s.id, 'outbound', ['AZHasRole']).filter((e) => view.hasKind(e.end, 'AZRole'));
  const groups = view.edgesOf(s.id, 'outbound', ['AZMemberOf']).filter((e) => view.hasKind(e.end, 'AZGroup'));
  const assignable = await trueProperty(s.db, 'nodes', groups.map((e) => e.end), 'isassignabletorole');
  const inherited = groups.filter((g) => assignable.has(g.end))
    .flatMap((g) => view.edgesOf(g.end, 'outbound', ['AZHasRole']).filter((e) => view.hasKind(e.end, 'AZRole')).map((e) => [g, e]));
  const nodes = [...new Set([...direct.map((e) => e.end), ...inherited.map(([, e]) => e.end)])];
  return { nodes, edges: () => [...direct, ...inherited.flat()] };
};

/** Inbound control: control edges into the entity, then, from their holders, only AZMemberOf / AZContains. */
export const inboundControl: Traversal = (s) => {
  const w = s.view.walk({
    roots: [s.id], direction: 'inbound', kinds: [...AZ_CONTROL_KINDS, 'AZMemberOf', 'AZContains'],
    step: (e, depth) => depth === 0 || e.kind === 'AZMemberOf' || e.kind === 'AZContains',
  });
  const nodes = w.reached.filter((id) => id !== s.id);
  return { nodes, edges: () => w.edgesTowards(nodes) };
};

/** Outbound control: what the entity, or a group it is (transitively) in, holds a control edge on. */
export const outboundControl: Traversal = (s) => {
  const groups = s.view.walk({ roots: [s.id], direction: 'outbound', kinds: ['AZMemberOf'] });
  const control = groups.reached.flatMap((holder) => s.view.edgesOf(holder, 'outbound', AZ_CONTROL_KINDS)).filter((e) => e.end !== s.id);
  const nodes = [...new Set(control.map((e) => e.end))];
  return { nodes, edges: () => [...groups.edgesTowards(new Set(control.map((e) => e.start))), ...control] };
};
