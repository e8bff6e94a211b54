/**
 * Entity routes on real data: the SharpHound v6 fixture set (../shared/fixtures/sharphound-v6) through
 * ingest and analysis. Every entity type × every related list answers consistently (list, count in
 * the info answer, graph), and a sample answers what FACTS.md and the raw files say.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';
import { ENTITY_TYPES } from './entities.table.ts';

const SID = 'S-1-5-21-909015691-3030120388-2582151266';
const rid = (n: number) => `${SID}-${n}`;
let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
  const outcomes = await ingestFiles(t.db, files.map((f) => ({ path: FIXTURES + f })));
  assert.deepEqual(outcomes.filter((o) => o.error), []);
  await analyzeGraph(t.db);
});
after(() => t.close());

const get = (url: string, query: Record<string, string> = {}) => t.request({ method: 'GET', url: `/api/v2/${url}`, token: reader, query });
const members = async (url: string) => {
  const res = await get(url, { limit: '0' });
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
  return (res.json().data as Array<{ objectID: string }>).map((d) => d.objectID).sort();
};

test('hand-derived answers on the fixture set (primary-group membership included)', async () => {
  // Every user whose PrimaryGroupSID is -513 (all but GUEST, whose primary group is -514); the group lists no members itself.
  assert.deepEqual(await members(`groups/${rid(513)}/members`), [500, 502, 1104, 1105, 1110, 1111, 1112, 1113, 1114, 1115, 1116, 1117].map(rid).sort());
  assert.deepEqual(await members(`groups/${rid(514)}/members`), [rid(501)]);
  // GROUP 1 lists GARCIA and GROUP 2, which lists MARTINEZ.
  assert.deepEqual(await members(`groups/${rid(1106)}/members`), [rid(1107), rid(1113), rid(1115)]);
  // ACEs on VICTIM: Domain Admins, Account Operators, Key Admins, Enterprise Key Admins, Enterprise Admins, Administrators;
  // RESEARCHER (-500) is a member of Domain Admins, Enterprise Admins and Administrators.
  assert.deepEqual(await members(`users/${rid(1117)}/controllers`), [rid(500), rid(512), rid(519), rid(526), rid(527), 'ESC1.LOCAL-S-1-5-32-544', 'ESC1.LOCAL-S-1-5-32-548'].sort());
  // RESEARCHER's privileged / registry session on the DC.
  assert.deepEqual(await members(`users/${rid(500)}/sessions`), [rid(1000)]);
  assert.deepEqual(await members(`computers/${rid(1000)}/sessions`), [rid(500)]);
  // The enterprise CA publishes its 12 enabled templates; ESC1 is published to it.
  assert.equal((await members('enterprisecas/14CEE53E-4D95-4DDD-A244-BF15C73DC06A/published-templates')).length, 12);
  assert.deepEqual(await members('certtemplates/DEBC8BEB-40AF-48B5-940F-AAFAFE961B26/published-to-cas'), ['14CEE53E-4D95-4DDD-A244-BF15C73DC06A']);
  // The Domain Controllers OU holds the DC; its own link and the domain's (both unenforced, nothing blocks) apply.
  const ou = '1AEEE963-F4C8-49DA-BBE6-A6107F42CAF0';
  assert.deepEqual(await members(`ous/${ou}/computers`), [rid(1000)]);
  assert.deepEqual(await members(`ous/${ou}/gpos`), ['1A8AA814-033D-45F2-96C2-3D2A1363F078', 'C8C7B7E0-C0F7-4FAC-8CCB-4B7C1CD03996']);
  assert.deepEqual(await members(`domains/${SID}/linked-gpos`), ['C8C7B7E0-C0F7-4FAC-8CCB-4B7C1CD03996']);
  assert.deepEqual(await members('gpos/1A8AA814-033D-45F2-96C2-3D2A1363F078/computers'), [rid(1000)]);
  assert.deepEqual(await members('gpos/C8C7B7E0-C0F7-4FAC-8CCB-4B7C1CD03996/computers'), [rid(1000), rid(1103)]);
  assert.deepEqual(await members(`domains/${SID}/computers`), [rid(1000), rid(1103)]);
  assert.deepEqual(await members(`domains/${SID}/ous`), [ou]);
});

test('every entity type × every related list: list, info count and graph agree (first nodes of each kind)', async () => {
  const nodes = await t.db.kysely.selectFrom('nodes').select(['objectid', 'kinds']).where('is_placeholder', '=', 0).orderBy('id').execute();
  let checked = 0;
  for (const type of ENTITY_TYPES) {
    const sample = nodes.filter((n) => (JSON.parse(n.kinds) as string[]).includes(type.kind)).slice(0, 3);
    assert.ok(sample.length > 0, `${type.path}: no ${type.kind} in the fixture set`);
    for (const { objectid } of sample) {
      const id = encodeURIComponent(objectid);
      const info = await get(`${type.path}/${id}`);
      assert.equal(info.statusCode, 200, `${type.path}/${objectid}`);
      for (const list of type.lists) {
        const url = `${type.path}/${id}/${list.path}`;
        const res = await get(url, { limit: '0' });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
        const body = res.json();
        assert.equal(body.data.length, body.count, url);
        assert.equal(new Set(body.data.map((d: { objectID: string }) => d.objectID)).size, body.count, `${url}: distinct`);
        if (list.count && !type.externalInfo) assert.equal(info.json().data[list.count], body.count, `${url}: info count`);
        if (list.listOnly || list.external) continue;
        const graph = await get(url, { type: 'graph' });
        assert.equal(graph.statusCode, 200, url);
        const ids = new Set(Object.keys(graph.json()).filter((k) => !k.startsWith('rel_')));
        if (body.count > 0) assert.ok(ids.size > body.count, `${url}: the graph holds the entity and every listed node`);
        checked++;
      }
    }
  }
  assert.ok(checked > 100, `${checked} lists checked`);
});
