/**
 * Fast-path generator of a large graph straight into the tables (SQLite; big transactions, prepared
 * statements, no HTTP): `nodes` nodes (1 Domain, the tag's seed group, a CertTemplate, the
 * controlling group, then users / groups / computers), one MemberOf edge per tag member and per
 * controller member, plus `noise` random HasSession edges. The tag (Tier Zero) gets one selector
 * seeded with the group; its membership is then derived by the real refreshTagMembership.
 */
import SQLite from 'better-sqlite3';
import { createDb, type Db } from '../src/db/create-db.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { refreshTagMembership } from '../src/modules/asset-group-tags/membership.service.ts';

export interface GraphSpec {
  nodes: number;
  tagMembers: number;
  controllers: number;
  noise: number;
}

export const DOMAIN = 'S-1-5-21-1000-2000-3000';
export const TEMPLATE_OBJECTID = 'BENCH-TEMPLATE-0001';
const TAG_GROUP = 2;
const TEMPLATE = 3;
const CTRL_GROUP = 4;
const FIRST_PRINCIPAL = 10;

function kindOf(i: number): string {
  if (i === 1) return 'Domain';
  if (i === TAG_GROUP || i === CTRL_GROUP) return 'Group';
  if (i === TEMPLATE) return 'CertTemplate';
  if (i % 10 === 0) return 'Group';
  if (i % 10 === 1) return 'Computer';
  return 'User';
}

function nameOf(i: number, kind: string): string {
  if (i === TAG_GROUP) return `TIER ZERO ADMINS@BENCH.LOCAL`;
  if (i === CTRL_GROUP) return `TEMPLATE ENROLLERS@BENCH.LOCAL`;
  if (i === TEMPLATE) return `BENCHTEMPLATE@BENCH.LOCAL`;
  return `${kind.toUpperCase()}${i}@BENCH.LOCAL`;
}

export async function generateGraph(path: string, spec: GraphSpec, log: (s: string) => void): Promise<void> {
  const db = createDb(`sqlite:${path}`);
  await migrateToLatest(db);
  await db.close();

  const raw = new SQLite(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = OFF');
  raw.pragma('cache_size = -262144');
  const now = Date.now() * 1000;
  let t = Date.now();
  const insertNode = raw.prepare(`insert into nodes (id, objectid, kind, kinds, name, environment_id, properties, source_kind, is_placeholder, last_seen)
    values (?, ?, ?, ?, ?, ?, ?, 'Base', 0, ?)`);
  const BATCH = 100_000;
  for (let start = 1; start <= spec.nodes; start += BATCH) {
    raw.transaction(() => {
      for (let i = start; i < Math.min(start + BATCH, spec.nodes + 1); i++) {
        const kind = kindOf(i);
        const objectid = i === 1 ? DOMAIN : i === TEMPLATE ? TEMPLATE_OBJECTID : `${DOMAIN}-${i}`;
        const name = nameOf(i, kind);
        const props = JSON.stringify({ name, objectid, domainsid: DOMAIN, enabled: true, lastlogon: 1700000000 + i, description: null });
        insertNode.run(i, objectid, kind, JSON.stringify([kind, 'Base']), name, DOMAIN, props, now);
      }
    })();
  }
  log(`nodes: ${spec.nodes} in ${Date.now() - t} ms`);

  t = Date.now();
  const insertEdge = raw.prepare(`insert or ignore into edges (start_id, end_id, kind, properties, last_seen) values (?, ?, ?, '{}', ?)`);
  raw.transaction(() => {
    // Tag: the seed group plus tagMembers - 1 principals that are its members.
    for (let i = 0; i < spec.tagMembers - 1; i++) insertEdge.run(FIRST_PRINCIPAL + i, TAG_GROUP, 'MemberOf', now);
    // Controllers: the group holding GenericAll plus controllers - 1 of its members (from the end of the id range).
    insertEdge.run(CTRL_GROUP, TEMPLATE, 'GenericAll', now);
    for (let i = 0; i < spec.controllers - 1; i++) insertEdge.run(spec.nodes - i, CTRL_GROUP, 'MemberOf', now);
  })();
  // A 32-bit LCG in integer arithmetic (seed * 1103515245 in doubles lost its low bits past 2^53 and
  // cycled after ~15,800 draws: the large graph held 217,911 edges instead of 5,000,000).
  let seed = 42;
  const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296);
  for (let done = 0; done < spec.noise; done += BATCH) {
    raw.transaction(() => {
      for (let i = done; i < Math.min(done + BATCH, spec.noise); i++) {
        insertEdge.run(FIRST_PRINCIPAL + Math.floor(rand() * (spec.nodes - FIRST_PRINCIPAL)), FIRST_PRINCIPAL + Math.floor(rand() * (spec.nodes - FIRST_PRINCIPAL)), 'HasSession', now);
      }
    })();
  }
  const held = (raw.prepare('select count(*) as n from edges').get() as { n: number }).n;
  log(`edges: ${held} held of ${spec.tagMembers + spec.controllers + spec.noise} generated (duplicates ignored) in ${Date.now() - t} ms`);

  raw.prepare(`insert into asset_group_tag_selectors (asset_group_tag_id, name, description, expansion, created_at, created_by, updated_at, updated_by)
    values (1, 'bench', '', 2, ?, 'bench', ?, 'bench')`).run(now, now);
  raw.prepare(`insert into asset_group_tag_selector_seeds (selector_id, type, value) values (1, 1, ?)`).run(`${DOMAIN}-${TAG_GROUP}`);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.exec('analyze');
  raw.close();

  t = Date.now();
  const app: Db = createDb(`sqlite:${path}`);
  await refreshTagMembership(app, 1);
  await app.close();
  log(`membership refresh (${spec.tagMembers} members): ${Date.now() - t} ms`);
}
