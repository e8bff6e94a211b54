/**
 * The named traversals behind BloodHound's entity related lists (reference §3.3; BloodHound
 * `packages/go/analysis/ad/queries.go`), each over the graph engine. A traversal gives the result
 * nodes (the list, and its count) and, when BloodHound has a graph form for it, the edges of the
 * answer graph. Walks visit each node once at its shallowest depth; where BloodHound enumerates
 * every path, the same node set results (differences: docs/exploring.md, "Differences").
 */
import type { Db } from '../../db/create-db.ts';
import type { Edge, GraphView, WalkPlan } from '../../graph/engine/index.ts';
import { ACL_KINDS, ADCS_ESCALATION_KINDS } from './kinds.ts';
import { gpoFacts } from './properties.repository.ts';

export interface Subject {
  view: GraphView;
  db: Db;
  /** The entity's node id. */
  id: number;
}

export interface Related {
  /** Result node ids (distinct). */
  nodes: number[];
  /** The answer graph's edges; absent when BloodHound has no graph form (type=graph is refused). */
  edges?: () => Promise<Edge[]> | Edge[];
}

export type Traversal = (s: Subject) => Promise<Related> | Related;

type Kinds = readonly string[];

/** A walk from the entity whose result is every reached node but the entity. */
function reachedFrom(s: Subject, plan: Omit<WalkPlan, 'roots'>, keep: (id: number) => boolean = () => true): Related {
  const w = s.view.walk({ ...plan, roots: [s.id] });
  const nodes = w.reached.filter((id) => id !== s.id && keep(id));
  return { nodes, edges: () => w.edgesTowards(nodes) };
}

/** A walk from the entity whose result is the nodes it could not leave (BloodHound's path terminals), but the entity. */
function terminalsFrom(s: Subject, plan: Omit<WalkPlan, 'roots'>, keep: (id: number) => boolean = () => true): Related {
  const w = s.view.walk({ ...plan, roots: [s.id] });
  const nodes = w.terminals.filter((id) => id !== s.id && keep(id));
  return { nodes, edges: () => w.edgesTowards(nodes) };
}

const isA = (s: Subject, ...kinds: string[]) => (id: number) => s.view.hasAnyKind(id, kinds);

// ------------------------------------------------------------------------------------------ control

/** CTRL-IN: direct holders of a control edge, then the members (transitively) of those holders. */
export const controllers = (controlKinds: Kinds = ACL_KINDS): Traversal => (s) =>
  reachedFrom(s, {
    direction: 'inbound', kinds: [...controlKinds, 'MemberOf'],
    step: (e, depth) => (depth === 0 ? e.kind !== 'MemberOf' && controlKinds.includes(e.kind) : e.kind === 'MemberOf'),
  });

/** CTRL-OUT: what the entity, or any group it is (transitively) in, holds a control edge on. */
export const controllables: Traversal = (s) => {
  const groups = s.view.walk({ roots: [s.id], direction: 'outbound', kinds: ['MemberOf'] });
  const holders = new Set(groups.reached);
  const found = new Map<number, Edge[]>();
  for (const holder of groups.reached) {
    for (const e of s.view.edgesOf(holder, 'outbound', ACL_KINDS)) {
      // Not the entity itself, nor a group on the way (BloodHound's paths never repeat a node).
      if (e.end === s.id || e.end === holder || (holders.has(e.end) && groups.depth(e.end) < groups.depth(holder))) continue;
      const list = found.get(e.end);
      if (list) list.push(e);
      else found.set(e.end, [e]);
    }
  }
  const nodes = [...found.keys()];
  return {
    nodes,
    edges: () => {
      const acl = [...found.values()].flat();
      return [...groups.edgesTowards(new Set(acl.map((e) => e.start))), ...acl];
    },
  };
};

// ---------------------------------------------------------------------------------------- membership

/** MEMBERSHIP: groups the entity belongs to, transitively. */
export const memberships: Traversal = (s) => reachedFrom(s, { direction: 'outbound', kinds: ['MemberOf'] });

/** MEMBERS: members of a group, transitively (only groups are walked through). */
export const members: Traversal = (s) =>
  reachedFrom(s, { direction: 'inbound', kinds: ['MemberOf'], expand: (id, depth) => depth === 0 || s.view.hasKind(id, 'Group') });

// ------------------------------------------------------------------------------- local group rights

/** LG-IN: principals holding a local-group right on a computer, through groups (not past a user or computer). */
export const localGroupHolders = (right: string): Traversal => (s) =>
  terminalsFrom(s, { direction: 'inbound', kinds: ['MemberOf', right], expand: (id, depth) => depth === 0 || !isA(s, 'Computer', 'User')(id) });

/** LG-OUT: computers the entity (or its groups) holds a local-group right on. */
export const localGroupRights = (right: string): Traversal => (s) =>
  terminalsFrom(s, { direction: 'outbound', kinds: ['MemberOf', right], expand: (id, depth) => depth === 0 || !isA(s, 'Computer')(id) }, isA(s, 'Computer'));

/** The far ends of one kind of edge in one direction, followed transitively (SQL admin, constrained delegation). */
export const edgeTerminals = (kind: string, direction: 'inbound' | 'outbound'): Traversal => (s) =>
  terminalsFrom(s, { direction, kinds: [kind] });

// ------------------------------------------------------------------------------------------ sessions

export const userSessions: Traversal = (s) => terminalsFrom(s, { direction: 'inbound', kinds: ['HasSession'] });
export const computerSessions: Traversal = (s) => terminalsFrom(s, { direction: 'outbound', kinds: ['HasSession'] });

/** SESS-GROUP: computers where members of the group (transitively) have sessions. */
export const groupSessions: Traversal = (s) => {
  const bySession = new Set<number>();
  const w = s.view.walk({
    roots: [s.id], direction: 'inbound', kinds: ['HasSession', 'MemberOf'],
    step: (e) => {
      if (e.kind === 'HasSession') bySession.add(e.start);
      return true;
    },
  });
  const nodes = w.terminals.filter((id) => id !== s.id && bySession.has(id) && s.view.hasKind(id, 'Computer'));
  return { nodes, edges: () => w.edgesTowards(nodes) };
};

// ------------------------------------------------------------------------------------------- domains

/** The domain SID a domain's lists are about (its environment: the domainsid, else the objectid). */
function domainSid(s: Subject): string {
  return s.view.environment(s.id) ?? '';
}

/** DOM-CONTAINED: every node of a kind in the domain (no graph form). */
export const domainContained = (kind: string): Traversal => (s) => ({ nodes: s.view.nodesWithKind(kind, domainSid(s)) });

/** Nodes of a kind from other domains that are (transitively) members of this domain's groups. */
export const foreignMembers = (kind: string): Traversal => (s) => {
  const sid = domainSid(s);
  const groups = s.view.nodesWithKind('Group', sid);
  const w = s.view.walk({ roots: groups, direction: 'inbound', kinds: ['MemberOf'] });
  const foreign = (id: number) => {
    const env = s.view.environment(id);
    return s.view.hasKind(id, kind) && env !== null && env !== sid;
  };
  const nodes = w.reached.filter(foreign);
  return { nodes, edges: () => w.edgesTowards(nodes) };
};

/**
 * Foreign admins / GPO controllers: holders from other domains of `kinds` edges into this domain's
 * `targetKind` nodes, plus what is reached backwards from groups holding such edges through groups
 * or foreign principals (over any edge kind), at the ends of those walks.
 */
const foreignHolders = (kinds: Kinds, targetKind: string): Traversal => (s) => {
  const sid = domainSid(s);
  const { view } = s;
  const direct: Edge[] = [];
  const groups = new Set<number>();
  const foreign = (id: number) => {
    const env = view.environment(id);
    return env !== null && env !== sid;
  };
  for (const target of view.nodesWithKind(targetKind, sid)) {
    for (const e of view.edgesOf(target, 'inbound', kinds)) {
      if (foreign(e.start)) direct.push(e);
      if (view.hasKind(e.start, 'Group')) groups.add(e.start);
    }
  }
  const nodes = new Set(direct.map((e) => e.start));
  const walks = [...groups].map((g) => {
    const w = view.walk({ roots: [g], direction: 'inbound', kinds: undefined, step: (e) => view.hasKind(e.start, 'Group') || foreign(e.start) });
    const ends = w.terminals.filter((id) => id !== g);
    for (const id of ends) nodes.add(id);
    return { w, ends };
  });
  return { nodes: [...nodes], edges: () => [...walks.flatMap(({ w, ends }) => w.edgesTowards(ends)), ...direct] };
};

export const foreignAdmins = foreignHolders(['AdminTo'], 'Computer');
export const foreignGpoControllers = foreignHolders(ACL_KINDS, 'GPO');

/** Trusts: other domains reached over trust edges, transitively. */
export const trusts = (direction: 'inbound' | 'outbound'): Traversal => (s) =>
  reachedFrom(s, { direction, kinds: ['SameForestTrust', 'CrossForestTrust'] }, isA(s, 'Domain'));

/** DCSync holders (direct edges); the graph shows their ways there over MemberOf / GetChanges / GetChangesAll. */
export const dcSyncers: Traversal = (s) => {
  const nodes = [...new Set(s.view.edgesOf(s.id, 'inbound', ['DCSync']).map((e) => e.start))];
  return {
    nodes,
    edges: () => nodes.flatMap((n) => {
      const w = s.view.walk({ roots: [n], direction: 'outbound', kinds: ['MemberOf', 'GetChanges', 'GetChangesAll'], expand: (id, depth) => depth === 0 || !s.view.hasKind(id, 'Domain') });
      return w.edgesTowards(w.reached.filter(isA(s, 'Domain')));
    }),
  };
};

export const adcsEscalations: Traversal = (s) => reachedFrom(s, { direction: 'inbound', kinds: ADCS_ESCALATION_KINDS });

// ---------------------------------------------------------------------------------------------- GPOs

/**
 * ENFORCED-GPO: GPOs that apply to the entity: up its Contains chain (Domain / OU containers) to
 * every GPLink; an enforced link always applies, another one unless an OU or domain between the
 * link and the entity blocks inheritance with an OU below it (BloodHound's FetchEnforcedGPOs).
 */
export const enforcedGpos: Traversal = async (s) => {
  const { view } = s;
  const links: Edge[] = [];
  const w = view.walk({
    roots: [s.id], direction: 'inbound', kinds: ['Contains', 'GPLink'],
    // A GPO ends its way: the OU that contains the GPO object, and that OU's links, do not apply.
    expand: (id, depth) => depth === 0 || view.hasAnyKind(id, ['Domain', 'OU']),
    step: (e) => {
      if (!(e.kind === 'GPLink' ? view.hasKind(e.start, 'GPO') : view.hasAnyKind(e.start, ['Domain', 'OU']))) return false;
      if (e.kind === 'GPLink') links.push(e);
      return true;
    },
  });
  const { enforced, blocking } = await gpoFacts(s.db, view);
  const chains = links.map((link) => chainDown(view, w, link.end, s.id));
  const gpos = new Set<number>();
  links.forEach((link, i) => {
    if (enforced.has(link.id) || !blockedOnTheWay(view, chains[i], blocking)) gpos.add(link.start);
  });
  const nodes = [...gpos];
  return { nodes, edges: () => w.edgesTowards(nodes) };
};

/** The walk's tree path from `from` back down to the root `to`: [from, ..., to]. */
function chainDown(view: GraphView, w: ReturnType<GraphView['walk']>, from: number, to: number): number[] {
  const out = [from];
  let at = from;
  for (let guard = 0; at !== to && guard < 10_000; guard++) {
    const e = w.parentEdge(at);
    if (!e) break;
    at = e.end;
    out.push(at);
  }
  void view;
  return out;
}

function blockedOnTheWay(view: GraphView, chain: number[], blocking: Set<number>): boolean {
  let lastBlocks = false;
  for (const id of chain) {
    if (!view.hasAnyKind(id, ['OU', 'Domain'])) return false;
    if (lastBlocks && view.hasKind(id, 'OU')) return true;
    if (blocking.has(id)) lastBlocks = true;
  }
  return false;
}

/**
 * GPO-AFFECTED: from every GPLink of the GPO (to a Domain or OU), everything contained below the
 * linked object (the object included), not into an OU whose parent OU blocks inheritance unless the
 * link is enforced; then the kept candidates.
 */
const gpoAffected = (candidate: (s: Subject, id: number) => boolean, descendOnly?: readonly string[]): Traversal => async (s) => {
  const { view } = s;
  const links = view.edgesOf(s.id, 'outbound', ['GPLink']).filter((e) => view.hasAnyKind(e.end, ['Domain', 'OU']));
  const { enforced, blocking } = await gpoFacts(s.db, view);
  const nodes = new Set<number>();
  const graphs: Array<() => Edge[]> = [];
  for (const link of links) {
    const unblocked = enforced.has(link.id);
    const w = view.walk({
      roots: [link.end], direction: 'outbound', kinds: ['Contains'],
      expand: (id, depth) => depth === 0 || !descendOnly || view.hasAnyKind(id, descendOnly),
      step: (e) => unblocked || !(view.hasKind(e.end, 'OU') && view.hasKind(e.start, 'OU') && blocking.has(e.start)),
    });
    const kept = w.reached.filter((id) => candidate(s, id));
    for (const id of kept) nodes.add(id);
    if (kept.length) graphs.push(() => [link, ...w.edgesTowards(kept)]);
  }
  return { nodes: [...nodes], edges: () => graphs.flatMap((g) => g()) };
};

export const gpoAffectedContainers = gpoAffected((s, id) => s.view.hasAnyKind(id, ['OU', 'Domain']), ['OU', 'Container', 'Domain']);
export const gpoAffectedUsers = gpoAffected((s, id) => s.view.hasKind(id, 'User'));
export const gpoAffectedComputers = gpoAffected((s, id) => s.view.hasKind(id, 'Computer'));
export const gpoAffectedTierZero = gpoAffected((s, id) => !s.view.hasKind(id, 'Group') && s.view.isTierZero(id));

/** OU-CONTAINED: nodes of a kind at the ends of the Contains tree below an OU. */
export const ouContained = (kind: string): Traversal => (s) => terminalsFrom(s, { direction: 'outbound', kinds: ['Contains'] }, isA(s, kind));

// ---------------------------------------------------------------------------------------------- PKI

/** One hop or a transitive walk over kinds, every node reached but the entity. */
export const reachedOver = (direction: 'inbound' | 'outbound', kinds: Kinds, keep?: (s: Subject, id: number) => boolean): Traversal => (s) =>
  reachedFrom(s, { direction, kinds, step: keep && ((e) => keep(s, direction === 'inbound' ? e.start : e.end)) });

const PKI_IN = ['HostsCAService', 'IssuedSignedBy', 'EnterpriseCAFor'];
const PKI_OUT = ['EnterpriseCAFor', 'TrustedForNTAuth', 'IssuedSignedBy', 'RootCAFor', 'NTAuthStoreFor'];

export const rootCaHierarchy = reachedOver('inbound', PKI_IN);

/** Both directions of the PKI hierarchy of a CA. */
export const caHierarchy: Traversal = async (s) => {
  const up = await reachedOver('inbound', PKI_IN)(s);
  const down = await reachedOver('outbound', PKI_OUT)(s);
  return { nodes: [...new Set([...up.nodes, ...down.nodes])], edges: async () => [...(await up.edges!()), ...(await down.edges!())] };
};

export const publishedTemplates = reachedOver('inbound', ['PublishedTo']);
export const publishedToCas = reachedOver('outbound', ['PublishedTo']);
export const trustedCas = reachedOver('inbound', ['TrustedForNTAuth']);
export const linkedTemplates = reachedOver('inbound', ['ExtendedByPolicy'], (s, id) => s.view.hasKind(id, 'CertTemplate'));
