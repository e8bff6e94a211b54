/** Table types of asset group tags (migration 0003-asset-group-tags). */
import type { Generated, Selectable } from 'kysely';
import type { Micros } from '../../db/time.ts';

export interface AssetGroupTagTable {
  id: Generated<number>;
  /** 1 tier, 2 label, 3 owned. */
  type: number;
  name: string;
  description: string;
  position: number | null;
  /** 0/1 or null. */
  require_certify: number | null;
  glyph: string | null;
  /** BloodHound's graph-kind row of the tag; Scent has no kind table: the tag's id (migration 0020). */
  kind_id: number;
  /** 0/1 or null (tiers only). */
  analysis_enabled: number | null;
  created_at: Micros;
  created_by: string;
  updated_at: Micros;
  updated_by: string;
}

export interface AssetGroupTagSelectorTable {
  id: Generated<number>;
  asset_group_tag_id: number;
  name: string;
  description: string;
  /** 0 none, 1 all (child + parent), 2 child, 3 parent. */
  expansion: number;
  /** 0 off, 1 all members, 2 seeds only. */
  auto_certify: Generated<number>;
  /** 0/1: seeded by Scent (only auto_certify and disabled may change). */
  is_default: Generated<number>;
  /** 0/1 */
  allow_disable: Generated<number>;
  disabled_at: Micros | null;
  /** Id of the user who disabled it. */
  disabled_by: string | null;
  created_at: Micros;
  created_by: string;
  updated_at: Micros;
  updated_by: string;
}

/** What each enabled selector selected (migration 0020); the tag's members are their union. */
export interface AssetGroupTagSelectorNodeTable {
  selector_id: number;
  node_id: number;
  /** 1 seed, 2 child, 3 parent. */
  source: number;
}

export interface AssetGroupTagSelectorSeedTable {
  selector_id: number;
  /** 1 = object id. */
  type: number;
  value: string;
}

export interface AssetGroupTagMemberTable {
  id: Generated<number>;
  tag_id: number;
  node_id: number;
  /** 1 seed, 2 child, 3 parent (the lowest over the tag's selectors). */
  source: number;
  objectid: string;
  /** Display name: nodes.name, or the objectid when the node has none. */
  name: string;
  primary_kind: string;
  environment_id: string | null;
  /** 0-based position of the member in node-id order within its tag. */
  ord: number;
}

export interface AssetGroupTagMemberCountTable {
  tag_id: number;
  primary_kind: string;
  member_count: number;
}

export interface GraphGenerationTable {
  id: number;
  generation: number;
}

/** Nodes a selector's Cypher seeds returned (migration 0051; src/cypher/selectors.ts). */
export interface AssetGroupTagSelectorCypherNodeTable {
  selector_id: number;
  node_id: number;
}

export interface AssetGroupTagTables {
  asset_group_tag_selector_cypher_nodes: AssetGroupTagSelectorCypherNodeTable;
  asset_group_tags: AssetGroupTagTable;
  asset_group_tag_selectors: AssetGroupTagSelectorTable;
  asset_group_tag_selector_seeds: AssetGroupTagSelectorSeedTable;
  asset_group_tag_selector_nodes: AssetGroupTagSelectorNodeTable;
  asset_group_tag_members: AssetGroupTagMemberTable;
  asset_group_tag_member_counts: AssetGroupTagMemberCountTable;
  graph_generation: GraphGenerationTable;
}

export type TagRow = Selectable<AssetGroupTagTable>;
export type SelectorRow = Selectable<AssetGroupTagSelectorTable>;

/** Every table a tag, selector or member answer is read from (for cached answers). */
export const TAG_TABLES = [
  'asset_group_tags', 'asset_group_tag_selectors', 'asset_group_tag_selector_seeds', 'asset_group_tag_selector_nodes',
  'asset_group_tag_members', 'asset_group_tag_member_counts',
] as const;
