/**
 * Graph comparison for tests (the way ../shared/fixtures/bloodhound-graphify/README.md describes it):
 * nodes by id (= objectid) with their SET of kinds, edges as (start, kind, end), properties compared
 * without the server-stamped `lastseen` / `lastcollected`. Two-way: extra nodes, edges, kinds and
 * properties count as differences too. On failure the differing nodes and edges are printed readably.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Db } from '../db/create-db.ts';
import { exportOpenGraph, openSnapshot } from './export/opengraph-export.ts';

export interface OpenGraphNode { id: string; kinds: string[]; properties?: Record<string, unknown> | null }
export interface OpenGraphEdge {
  start: { value: string; match_by?: string };
  end: { value: string; match_by?: string };
  kind: string;
  properties?: Record<string, unknown> | null;
}
export interface OpenGraphDoc { metadata?: { source_kind?: string | null }; graph: { nodes: OpenGraphNode[]; edges: OpenGraphEdge[] } }

/** Keys set by the server at ingest time; never compared. */
export const STAMPED = ['lastseen', 'lastcollected'];

export function readOpenGraph(path: string): OpenGraphDoc {
  return JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as OpenGraphDoc;
}

/** The database's graph as `scent export` writes it, parsed (test graphs are small). */
export async function exportGraph(db: Db): Promise<OpenGraphDoc> {
  let text = '';
  for await (const chunk of exportOpenGraph(await openSnapshot(db))) text += chunk;
  return JSON.parse(text) as OpenGraphDoc;
}

export type Difference =
  | { what: 'node missing' | 'node extra'; id: string; kinds: string[] }
  | { what: 'node kinds'; id: string; expected: string[]; actual: string[] }
  | { what: 'node property'; id: string; key: string; expected: unknown; actual: unknown }
  | { what: 'edge missing' | 'edge extra'; start: string; kind: string; end: string }
  | { what: 'edge property'; start: string; kind: string; end: string; key: string; expected: unknown; actual: unknown };

export interface GraphDiff {
  nodes: { equal: number; differing: number };
  edges: { equal: number; differing: number };
  differences: Difference[];
}

const edgeKey = (e: OpenGraphEdge) => `${e.start.value}\u0000${e.kind}\u0000${e.end.value}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));

function propertyDiffs(actual: Record<string, unknown> | null | undefined, expected: Record<string, unknown> | null | undefined) {
  const a = actual ?? {};
  const e = expected ?? {};
  const out: Array<{ key: string; expected: unknown; actual: unknown }> = [];
  for (const key of [...new Set([...Object.keys(e), ...Object.keys(a)])].sort()) {
    if (STAMPED.includes(key)) continue;
    if (!same(a[key], e[key])) out.push({ key, expected: e[key], actual: a[key] });
  }
  return out;
}

/** Every difference between `actual` and `expected`, and the equal / differing counts. */
export function compareGraphs(actual: OpenGraphDoc, expected: OpenGraphDoc): GraphDiff {
  const differences: Difference[] = [];
  const counts = { nodes: { equal: 0, differing: 0 }, edges: { equal: 0, differing: 0 } };
  const actualNodes = new Map(actual.graph.nodes.map((n) => [n.id, n]));
  const expectedIds = new Set<string>();
  for (const e of expected.graph.nodes) {
    expectedIds.add(e.id);
    const a = actualNodes.get(e.id);
    if (!a) {
      differences.push({ what: 'node missing', id: e.id, kinds: e.kinds });
      counts.nodes.differing++;
      continue;
    }
    const before = differences.length;
    const ak = [...new Set(a.kinds)].sort();
    const ek = [...new Set(e.kinds)].sort();
    if (!same(ak, ek)) differences.push({ what: 'node kinds', id: e.id, expected: ek, actual: ak });
    for (const p of propertyDiffs(a.properties, e.properties)) differences.push({ what: 'node property', id: e.id, ...p });
    counts.nodes[differences.length === before ? 'equal' : 'differing']++;
  }
  for (const a of actual.graph.nodes) {
    if (expectedIds.has(a.id)) continue;
    differences.push({ what: 'node extra', id: a.id, kinds: a.kinds });
    counts.nodes.differing++;
  }
  const actualEdges = new Map(actual.graph.edges.map((e) => [edgeKey(e), e]));
  const expectedKeys = new Set<string>();
  for (const e of expected.graph.edges) {
    const key = edgeKey(e);
    expectedKeys.add(key);
    const ends = { start: e.start.value, kind: e.kind, end: e.end.value };
    const a = actualEdges.get(key);
    if (!a) {
      differences.push({ what: 'edge missing', ...ends });
      counts.edges.differing++;
      continue;
    }
    const diffs = propertyDiffs(a.properties, e.properties);
    for (const p of diffs) differences.push({ what: 'edge property', ...ends, ...p });
    counts.edges[diffs.length ? 'differing' : 'equal']++;
  }
  for (const a of actual.graph.edges) {
    if (expectedKeys.has(edgeKey(a))) continue;
    differences.push({ what: 'edge extra', start: a.start.value, kind: a.kind, end: a.end.value });
    counts.edges.differing++;
  }
  return { ...counts, differences };
}

export function describeDifference(d: Difference): string {
  switch (d.what) {
    case 'node missing':
    case 'node extra':
      return `${d.what}: ${d.id} [${d.kinds.join(', ')}]`;
    case 'node kinds':
      return `node kinds: ${d.id} expected [${d.expected.join(', ')}], got [${d.actual.join(', ')}]`;
    case 'node property':
      return `node property: ${d.id} .${d.key} expected ${show(d.expected)}, got ${show(d.actual)}`;
    case 'edge missing':
    case 'edge extra':
      return `${d.what}: ${d.start} -[${d.kind}]-> ${d.end}`;
    case 'edge property':
      return `edge property: ${d.start} -[${d.kind}]-> ${d.end} .${d.key} expected ${show(d.expected)}, got ${show(d.actual)}`;
  }
}

/** The differences, grouped by what differs, at most `limit` lines per group. */
export function formatDifferences(differences: Difference[], limit = 40): string {
  const groups = new Map<string, Difference[]>();
  for (const d of differences) groups.set(d.what, [...(groups.get(d.what) ?? []), d]);
  const lines: string[] = [];
  for (const [what, list] of groups) {
    lines.push(`${what}: ${list.length}`);
    for (const d of list.slice(0, limit)) lines.push(`  ${describeDifference(d)}`);
    if (list.length > limit) lines.push(`  ... and ${list.length - limit} more`);
  }
  return lines.join('\n');
}

/**
 * Asserts that `actual` equals `expected` except for the differences `allowed` accepts (documented
 * decisions). Each allowance must still match something, so a decision that no longer applies fails
 * the test too (and its documentation is updated with it).
 */
export function assertGraphParity(actual: OpenGraphDoc, expected: OpenGraphDoc, label: string, allowed: Record<string, (d: Difference) => boolean> = {}): GraphDiff {
  const diff = compareGraphs(actual, expected);
  const used = new Set<string>();
  const unexplained = diff.differences.filter((d) => {
    const reason = Object.entries(allowed).find(([, accepts]) => accepts(d));
    if (reason) used.add(reason[0]);
    return !reason;
  });
  const summary = `${label}: nodes ${diff.nodes.equal} equal / ${diff.nodes.differing} differing; edges ${diff.edges.equal} equal / ${diff.edges.differing} differing`;
  assert.ok(unexplained.length === 0, `${summary}\n${formatDifferences(unexplained)}`);
  const stale = Object.keys(allowed).filter((k) => !used.has(k));
  assert.deepEqual(stale, [], `${label}: documented differences that no longer occur`);
  return diff;
}
