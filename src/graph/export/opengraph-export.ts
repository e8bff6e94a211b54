/**
 * The whole graph as BloodHound OpenGraph JSON (the format of BloodHound's own graph fixtures):
 *   {"metadata":{"source_kind":""},"graph":{"nodes":[{id, kinds, properties}],
 *    "edges":[{start:{match_by:"id",value}, end:{match_by:"id",value}, kind, properties}]}}
 * - node `id` = objectid; `properties` = the stored properties plus `objectid`, `name` (the display
 *   name, when the properties hold none) and `lastseen` (RFC 3339, the time of the last ingest that
 *   wrote the node; BloodHound stamps it the same way);
 * - tag membership shows as BloodHound shows it: a member of a tag gets the kind `Tag_<name>`
 *   (spaces → `_`, appended after the node's own kinds), a member of the Tier Zero tier also the
 *   property `system_tags: "admin_tier_0"`;
 * - edges carry their stored properties plus `lastseen`.
 * Read from one snapshot (./snapshot.ts) in pages of PAGE rows, so memory stays flat whatever the
 * graph's size. `checkpoint` runs before every page (the HTTP route stops at its deadline there).
 * Callers open the snapshot first (so an unreachable database fails before any byte is sent) and
 * close it again if the stream is abandoned before it started (Snapshot.close is idempotent).
 */
import { toRfc3339 } from '../../db/time.ts';
import type { Snapshot } from './snapshot.ts';

export { openSnapshot, type Snapshot } from './snapshot.ts';

const PAGE = 2_000;

interface TagRow { id: number; name: string; type: number; position: number | null }
interface NodeRow { id: number; objectid: string; kinds: string; name: string | null; properties: string; last_seen: number }
interface EdgeRow { id: number; s: string; kind: string; t: string; properties: string; last_seen: number }

/** BloodHound's kind for a tag's members (`AssetGroupTag.KindName`). */
export const tagKind = (name: string) => `Tag_${name.replace(/ /g, '_')}`;
export const TIER_ZERO_SYSTEM_TAG = 'admin_tier_0';

export interface ExportOptions {
  checkpoint?: () => void;
}

/** Streams the graph of `snap` (which it closes when done, failed or abandoned). */
export async function* exportOpenGraph(snap: Snapshot, options: ExportOptions = {}): AsyncGenerator<string> {
  const checkpoint = options.checkpoint ?? (() => {});
  try {
    const tags = await snap.rows<TagRow>('SELECT id, name, type, position FROM asset_group_tags ORDER BY id');
    const tiers = tags.filter((t) => t.type === 1).sort((a, b) => (a.position ?? Infinity) - (b.position ?? Infinity));
    const tierZero = tiers.length && tiers[0].position === 1 ? tiers[0].id : null;
    const tagIds = tags.map((t) => t.id);
    const tagSql = tagIds.length
      ? `SELECT node_id, tag_id FROM asset_group_tag_members WHERE tag_id IN (${tagIds.map(() => '?').join(',')}) AND node_id >= ? AND node_id <= ?`
      : null;
    const kindOf = new Map(tags.map((t) => [t.id, tagKind(t.name)]));
    const tierRank = new Map(tiers.map((t, i) => [t.id, i]));

    yield '{"metadata":{"source_kind":""},"graph":{"nodes":[';
    let first = true;
    for (let after = 0; ;) {
      checkpoint();
      const rows = await snap.rows<NodeRow>(
        'SELECT id, objectid, kinds, name, properties, last_seen FROM nodes WHERE id > ? ORDER BY id LIMIT ?', [after, PAGE]);
      if (!rows.length) break;
      const memberships = new Map<number, number[]>();
      if (tagSql) {
        const lo = Number(rows[0].id);
        const hi = Number(rows[rows.length - 1].id);
        for (const m of await snap.rows<{ node_id: number; tag_id: number }>(tagSql, [...tagIds, lo, hi])) {
          const list = memberships.get(Number(m.node_id)) ?? [];
          list.push(Number(m.tag_id));
          memberships.set(Number(m.node_id), list);
        }
      }
      const parts: string[] = [];
      for (const r of rows) {
        const kinds = JSON.parse(r.kinds) as string[];
        const properties = JSON.parse(r.properties) as Record<string, unknown>;
        properties.objectid = r.objectid;
        if (properties.name === undefined && r.name !== null) properties.name = r.name;
        properties.lastseen = toRfc3339(Number(r.last_seen));
        const tagged = memberships.get(Number(r.id));
        if (tagged) {
          // A node is in one tier at most (the first by position wins, as in BloodHound); labels overlap.
          const tier = tagged.filter((id) => tierRank.has(id)).sort((a, b) => tierRank.get(a)! - tierRank.get(b)!)[0];
          for (const id of tagged.sort((a, b) => a - b)) if (!tierRank.has(id) || id === tier) kinds.push(kindOf.get(id)!);
          if (tier !== undefined && tier === tierZero) properties.system_tags = TIER_ZERO_SYSTEM_TAG;
        }
        parts.push(JSON.stringify({ id: r.objectid, kinds, properties }));
      }
      yield (first ? '' : ',') + parts.join(',');
      first = false;
      after = Number(rows[rows.length - 1].id);
      if (rows.length < PAGE) break;
    }
    yield '],"edges":[';
    first = true;
    for (let after = 0; ;) {
      checkpoint();
      const rows = await snap.rows<EdgeRow>(
        `SELECT e.id, s.objectid AS s, e.kind, t.objectid AS t, e.properties, e.last_seen
         FROM edges e JOIN nodes s ON s.id = e.start_id JOIN nodes t ON t.id = e.end_id
         WHERE e.id > ? ORDER BY e.id LIMIT ?`, [after, PAGE]);
      if (!rows.length) break;
      const parts = rows.map((r) => {
        const properties = JSON.parse(r.properties) as Record<string, unknown>;
        properties.lastseen = toRfc3339(Number(r.last_seen));
        return JSON.stringify({ start: { match_by: 'id', value: r.s }, end: { match_by: 'id', value: r.t }, kind: r.kind, properties });
      });
      yield (first ? '' : ',') + parts.join(',');
      first = false;
      after = Number(rows[rows.length - 1].id);
      if (rows.length < PAGE) break;
    }
    yield ']}}';
  } finally {
    await snap.close();
  }
}
