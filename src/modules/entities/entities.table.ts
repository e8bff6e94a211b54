/**
 * The entity routes as one declaration table (STYLE.md point 13), row for row against
 * reference/bloodhound-api-surface.md §3.4 (BloodHound cmd/api/src/api/v2/ad_entity.go and
 * ad_related_entity.go): entity type → the node kind it is looked up by → its related lists, each a
 * named traversal (./traversals.ts), and the key its count has in the entity's info answer.
 */
import { CONTROL_EDGE_KINDS } from '../cert-templates/controllers.repository.ts';
import * as T from './traversals.ts';

export interface RelatedList {
  /** URL segment after the object id. */
  path: string;
  /** Key of its count in the info answer (absent: not counted there). */
  count?: string;
  traversal: T.Traversal;
  /** BloodHound has no graph form for it (type=graph is refused). */
  listOnly?: boolean;
  /** Served by another module (the route is not generated here), counted here. */
  external?: boolean;
}

export interface EntityType {
  /** URL segment: /api/v2/<path>/{object_id}. */
  path: string;
  /** The kind a node must carry to be found on these routes. */
  kind: string;
  lists: RelatedList[];
  /** Counted in the info answer only (no route in BloodHound). */
  counts?: Array<{ count: string; traversal: T.Traversal }>;
  /** The info route is served by another module. */
  externalInfo?: boolean;
}

const list = (path: string, count: string | undefined, traversal: T.Traversal, extra: Partial<RelatedList> = {}): RelatedList =>
  ({ path, count, traversal, ...extra });

const controllers = list('controllers', 'controllers', T.controllers());

export const ENTITY_TYPES: EntityType[] = [
  {
    path: 'users', kind: 'User',
    lists: [
      list('sessions', 'sessions', T.userSessions),
      list('memberships', 'groupMembership', T.memberships),
      list('admin-rights', 'adminRights', T.localGroupRights('AdminTo')),
      list('rdp-rights', 'rdpRights', T.localGroupRights('CanRDP')),
      list('dcom-rights', 'dcomRights', T.localGroupRights('ExecuteDCOM')),
      list('ps-remote-rights', 'psRemoteRights', T.localGroupRights('CanPSRemote')),
      list('sql-admin-rights', 'sqlAdmin', T.edgeTerminals('SQLAdmin', 'outbound')),
      list('constrained-delegation-rights', 'constrainedDelegation', T.edgeTerminals('AllowedToDelegate', 'outbound')),
      list('controllables', 'controllables', T.controllables),
      controllers,
    ],
    counts: [{ count: 'gpos', traversal: T.enforcedGpos }],
  },
  {
    path: 'groups', kind: 'Group',
    lists: [
      list('sessions', 'sessions', T.groupSessions),
      list('members', 'members', T.members),
      list('memberships', 'membership', T.memberships),
      list('admin-rights', 'adminRights', T.localGroupRights('AdminTo')),
      list('rdp-rights', 'rdpRights', T.localGroupRights('CanRDP')),
      list('dcom-rights', 'dcomRights', T.localGroupRights('ExecuteDCOM')),
      list('ps-remote-rights', 'psRemoteRights', T.localGroupRights('CanPSRemote')),
      list('controllables', 'controllables', T.controllables),
      controllers,
    ],
  },
  {
    path: 'computers', kind: 'Computer',
    lists: [
      list('sessions', 'sessions', T.computerSessions),
      list('admin-users', 'adminUsers', T.localGroupHolders('AdminTo')),
      list('rdp-users', 'rdpUsers', T.localGroupHolders('CanRDP')),
      list('dcom-users', 'dcomUsers', T.localGroupHolders('ExecuteDCOM')),
      list('ps-remote-users', 'psRemoteUsers', T.localGroupHolders('CanPSRemote')),
      list('sql-admins', 'sqlAdminUsers', T.edgeTerminals('SQLAdmin', 'inbound')),
      list('constrained-users', 'constrainedUsers', T.edgeTerminals('AllowedToDelegate', 'inbound')),
      list('group-membership', 'groupMembership', T.memberships),
      list('admin-rights', 'adminRights', T.localGroupRights('AdminTo')),
      list('rdp-rights', 'rdpRights', T.localGroupRights('CanRDP')),
      list('dcom-rights', 'dcomRights', T.localGroupRights('ExecuteDCOM')),
      list('ps-remote-rights', 'psRemoteRights', T.localGroupRights('CanPSRemote')),
      list('constrained-delegation-rights', 'constrainedPrivs', T.edgeTerminals('AllowedToDelegate', 'outbound')),
      list('controllables', 'controllables', T.controllables),
      controllers,
    ],
    counts: [{ count: 'gpos', traversal: T.enforcedGpos }],
  },
  {
    path: 'domains', kind: 'Domain',
    lists: [
      list('users', 'users', T.domainContained('User'), { listOnly: true }),
      list('groups', 'groups', T.domainContained('Group'), { listOnly: true }),
      list('computers', 'computers', T.domainContained('Computer'), { listOnly: true }),
      list('ous', 'ous', T.domainContained('OU'), { listOnly: true }),
      list('gpos', 'gpos', T.domainContained('GPO'), { listOnly: true }),
      list('foreign-users', 'foreignUsers', T.foreignMembers('User')),
      list('foreign-groups', 'foreignGroups', T.foreignMembers('Group')),
      list('foreign-admins', 'foreignAdmins', T.foreignAdmins),
      list('foreign-gpo-controllers', 'foreignGPOControllers', T.foreignGpoControllers),
      list('inbound-trusts', 'inboundTrusts', T.trusts('inbound')),
      list('outbound-trusts', 'outboundTrusts', T.trusts('outbound')),
      controllers,
      list('dc-syncers', 'dcsyncers', T.dcSyncers),
      list('linked-gpos', 'linkedgpos', T.enforcedGpos),
      list('adcs-escalations', 'adcs-escalations', T.adcsEscalations),
    ],
  },
  {
    path: 'ous', kind: 'OU',
    lists: [
      list('gpos', 'gpos', T.enforcedGpos),
      list('users', 'users', T.ouContained('User')),
      list('groups', 'groups', T.ouContained('Group')),
      list('computers', 'computers', T.ouContained('Computer')),
    ],
  },
  {
    path: 'gpos', kind: 'GPO',
    lists: [
      list('ous', 'ous', T.gpoAffectedContainers),
      list('computers', 'computers', T.gpoAffectedComputers),
      list('users', 'users', T.gpoAffectedUsers),
      list('tier-zero', 'tierzero', T.gpoAffectedTierZero),
      controllers,
    ],
  },
  { path: 'containers', kind: 'Container', lists: [controllers] },
  { path: 'aiacas', kind: 'AIACA', lists: [controllers, list('pki-hierarchy', 'pki-hierarchy', T.caHierarchy)] },
  { path: 'rootcas', kind: 'RootCA', lists: [controllers, list('pki-hierarchy', 'pki-hierarchy', T.rootCaHierarchy)] },
  {
    path: 'enterprisecas', kind: 'EnterpriseCA',
    lists: [controllers, list('pki-hierarchy', 'pki-hierarchy', T.caHierarchy), list('published-templates', 'published-templates', T.publishedTemplates)],
  },
  { path: 'ntauthstores', kind: 'NTAuthStore', lists: [controllers, list('trusted-cas', 'trusted-cas', T.trustedCas)] },
  {
    // The info route and /controllers are the certificate-template module's (CONTRACT §6: its own
    // control-edge list, default order, answer shape); published-to-cas is generated here.
    path: 'certtemplates', kind: 'CertTemplate', externalInfo: true,
    lists: [
      list('controllers', 'controllers', T.controllers(CONTROL_EDGE_KINDS), { external: true }),
      list('published-to-cas', undefined, T.publishedToCas),
    ],
  },
  { path: 'issuancepolicies', kind: 'IssuancePolicy', lists: [controllers, list('linkedtemplates', 'linkedTemplates', T.linkedTemplates)] },
  { path: 'base', kind: 'Base', lists: [list('controllers', undefined, T.controllers()), list('controllables', 'controllables', T.controllables)] },
];
