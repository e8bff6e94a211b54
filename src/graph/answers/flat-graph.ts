/**
 * BloodHound's flat graph map (reference bloodhound-api-surface.md §2.1): node entries keyed by
 * node id, edge entries keyed `rel_<edge id>` with `id1`/`id2`; what its UI draws for entity
 * related lists (`type=graph`), graph-search and pathfinding.
 */
import type { EdgeRecord, NodeRecord } from '../engine/index.ts';

const STYLE: Record<string, [icon: string, color: string]> = {
  AZApp: ['fas fa-window-restore', '#03FC84'], AZVMScaleSet: ['fas fa-server', '#007CD0'], AZDevice: ['fas fa-desktop', '#B18FCF'],
  AZFunctionApp: ['fas fa-bolt', '#F4BA44'], AZGroup: ['fas fa-users', '#F57C9B'], AZKeyVault: ['fas fa-lock', '#ED658C'],
  AZManagementGroup: ['fas fa-sitemap', '#BD93D8'], AZResourceGroup: ['fas fa-cube', '#89BD9E'], AZRole: ['fas fa-clipboard-list', '#ED8537'],
  AZServicePrincipal: ['fas fa-robot', '#C1D6D6'], AZSubscription: ['fas fa-key', '#D2CCA1'], AZTenant: ['fas fa-cloud', '#54F2F2'],
  AZUser: ['fas fa-user', '#34D2EB'], AZVM: ['fas fa-desktop', '#F9ADA0'], AZManagedCluster: ['fas fa-cubes', '#326CE5'],
  AZContainerRegistry: ['fas fa-box-open', '#0885D7'], AZWebApp: ['fas fa-object-group', '#4696E9'], AZLogicApp: ['fas fa-sitemap', '#9EE047'],
  AZAutomationAccount: ['fas fa-cog', '#F4BA44'], User: ['fas fa-user', '#17E625'], Group: ['fas fa-users', '#DBE617'],
  Computer: ['fas fa-desktop', '#E67873'], Container: ['fas fa-box', '#F79A78'], Domain: ['fas fa-globe', '#17E6B9'],
  OU: ['fas fa-sitemap', '#FFAA00'], GPO: ['fas fa-list', '#998EFD'], AIACA: ['fas fa-arrows-left-right-to-line', '#9769F0'],
  RootCA: ['fas fa-landmark', '#6968E8'], EnterpriseCA: ['fas fa-building', '#4696E9'], NTAuthStore: ['fas fa-store', '#D575F5'],
  CertTemplate: ['fas fa-id-card', '#B153F3'], IssuancePolicy: ['fas fa-clipboard-check', '#EEE'],
};

/** The name a node is shown by: name → displayname → objectid → "NO NAME". */
export function displayName(n: Pick<NodeRecord, 'name' | 'objectid' | 'properties'>): string {
  const p = n.properties ?? {};
  for (const v of [p.name, n.name, p.displayname, n.objectid]) if (typeof v === 'string' && v !== '') return v;
  return 'NO NAME';
}

/** The kind a node is drawn as (BloodHound's display label): Meta kinds first, else the stored primary kind. */
export function displayKind(n: NodeRecord): string {
  if (n.kinds.some((k) => k === 'Meta' || k === 'MetaDetail' || k === 'MetaIncludes')) return 'Meta';
  return n.primaryKind;
}

export function flatNode(n: NodeRecord): Record<string, unknown> {
  const kind = displayKind(n);
  const data: Record<string, unknown> = { ...(n.properties ?? {}), isTierZero: n.isTierZero, nodetype: kind, kinds: n.kinds };
  if (n.isTierZero) data.level = 0;
  const sorted = Object.fromEntries(Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const style = STYLE[kind];
  const entry: Record<string, unknown> = {
    color: kind === 'Meta' ? '#000' : style?.[1] ?? '#EEE',
    data: sorted,
    border: { color: 'black' },
  };
  if (kind === 'Meta') entry.image = Number(data.admintier) === 0 && 'admintier' in data ? '/ui/metat0.png' : '/ui/meta.png';
  else entry.fontIcon = { text: style?.[0] ?? 'fas fa-question' };
  entry.label = { backgroundColor: 'rgba(255,255,255,0.9)', center: true, fontSize: 14, text: displayName(n) };
  entry.size = 1;
  return entry;
}

export function flatEdge(e: EdgeRecord): Record<string, unknown> {
  const entry: Record<string, unknown> = { color: '3a5464' };
  if (Object.keys(e.properties).length) entry.data = e.properties;
  entry.end2 = { arrow: true };
  entry.id1 = String(e.start);
  entry.id2 = String(e.end);
  entry.label = { text: e.kind };
  return entry;
}

/** Edges first, then nodes (BloodHound's order when it renders a path set). */
export function flatGraph(nodes: readonly NodeRecord[], edges: readonly EdgeRecord[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of edges) out[`rel_${e.id}`] = flatEdge(e);
  for (const n of nodes) out[String(n.id)] = flatNode(n);
  return out;
}
