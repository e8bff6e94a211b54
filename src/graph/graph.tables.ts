/** Table types of the graph store (migration 0002-graph; described in ./README.md). */
import type { Generated, Selectable } from 'kysely';
import type { Bool } from '../db/database.ts';
import type { Micros } from '../db/time.ts';

export interface NodeTable {
  id: Generated<number>;
  /** Unique, upper-cased (SIDs, GUIDs, OpenGraph ids), as BloodHound stores them. */
  objectid: string;
  /** Primary kind (= first of `kinds`), e.g. User, Group, CertTemplate, AZUser. */
  kind: string;
  /** JSON array text of every kind, primary first, e.g. ["User","Base"]. */
  kinds: string;
  name: string | null;
  /** Domain SID (AD) or tenant id (Azure); null when unknown. */
  environment_id: string | null;
  /** JSON object text. */
  properties: string;
  /** 'Base' (AD), 'AZBase' (Azure) or an OpenGraph source kind; null for placeholders. */
  source_kind: string | null;
  /** 1 while only edges have named this object (no file has described it yet). */
  is_placeholder: Bool;
  last_seen: Micros;
}

export interface EdgeTable {
  id: Generated<number>;
  start_id: number;
  end_id: number;
  kind: string;
  /** JSON object text. */
  properties: string;
  last_seen: Micros;
}

/** Written by triggers (migration 0040): deletes, and node kind / environment changes, for the graph engine. */
export interface GraphChangeTable {
  id: Generated<number>;
  node_id: number | null;
  edge_id: number | null;
  at: Generated<Micros>;
}

export interface GraphChangesPrunedTable {
  id: number;
  upto: number;
}

export interface GraphTables {
  nodes: NodeTable;
  edges: EdgeTable;
  graph_changes: GraphChangeTable;
  graph_changes_pruned: GraphChangesPrunedTable;
}

export type NodeRow = Selectable<NodeTable>;
export type EdgeRow = Selectable<EdgeTable>;
