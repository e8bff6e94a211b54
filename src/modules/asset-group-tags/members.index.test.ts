/**
 * The in-process members index (members.index.ts) answers sorted and filtered pages exactly as the database does:
 * every answer below is compared with the database's own statement (the query engine's filters, sort and paging on
 * asset_group_tag_members), over names with ties, mixed case, non-ASCII letters and two environments.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';
import { applyPaging, applySort, filterConditions, parseQuery } from '../../http/query/index.ts';
import { memberJson, membersQuery, type MemberRow } from './members.repository.ts';
import { ENV, ENV2 } from '../../test/tag-graph.ts';

let t: TestApp;
let admin: string;
let tagId: number;

const NAMES = ['alpha', 'Alpha', 'ALPHA', 'beta', 'Émile', 'émile', 'straße', 'STRASSE', 'ΣΟΦΟΣ', 'İstanbul', 'istanbul', 'zeta', 'Zeta', 'a_b', 'a%b', 'mu'];

before(async () => {
  t = await createTestApp();
  admin = (await t.login('Administrator')).token;
  const members = Array.from({ length: 240 }, (_, i) => ({
    objectid: `IX-${String((i * 37) % 240).padStart(3, '0')}`, kinds: [i % 3 === 0 ? 'Group' : i % 3 === 1 ? 'User' : 'Computer', 'Base'],
    // Ties: every name several times, with different node ids.
    name: `${NAMES[i % NAMES.length]}${i % 5 === 0 ? '' : ` ${i % 7}`}@CORP.LOCAL`, environmentId: i % 4 === 0 ? ENV2 : ENV,
  }));
  await upsertNodes(t.db.kysely, [{ objectid: 'IX-GROUP', kinds: ['Group', 'Base'], name: 'IX@CORP.LOCAL', environmentId: ENV }, ...members]);
  await upsertEdges(t.db.kysely, members.map((m) => ({ start: { objectid: m.objectid }, end: { objectid: 'IX-GROUP' }, kind: 'MemberOf' })));
  tagId = (await t.request({ method: 'POST', url: '/api/v2/asset-group-tags', token: admin, body: { name: 'Indexed', type: 2 } })).json().data.id;
  const sel = await t.request({ method: 'POST', url: `/api/v2/asset-group-tags/${tagId}/selectors`, token: admin, body: { name: 'ix', seeds: [{ type: 1, value: 'IX-GROUP' }] } });
  assert.equal(sel.statusCode, 201);
});
after(() => t.close());

/** The database's answer: the engine's statement on the members table alone (no index involved). */
async function expected(query: Record<string, string | string[]>): Promise<{ count: number; ids: number[] }> {
  const parsed = parseQuery(membersQuery, query);
  const environments = parsed.params.environments as string[] | undefined;
  let base = t.db.kysely.selectFrom('asset_group_tag_members as m').where('m.tag_id', '=', tagId);
  if (environments?.length) base = base.where('m.environment_id', 'in', environments);
  for (const c of filterConditions(membersQuery, parsed)) base = base.where(c);
  const count = Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await applyPaging(applySort(base.select('m.node_id'), membersQuery, parsed), parsed).execute();
  return { count, ids: rows.map((r) => Number(r.node_id)) };
}

async function answer(query: Record<string, string | string[]>): Promise<{ count: number; ids: number[] }> {
  const res = await t.request({ method: 'GET', url: `/api/v2/asset-group-tags/${tagId}/members`, token: admin, query });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json() as { count: number; data: { members: Array<{ id: number }> } };
  return { count: body.count, ids: body.data.members.map((m) => m.id) };
}

const SORTS = [undefined, 'name', '-name', 'objectid', '-objectid', 'id', '-id', ['name', 'id'], ['-name', 'objectid']];
const FILTERS: Array<Record<string, string | string[]>> = [
  {}, { name: '~eq:alpha' }, { name: '~eq:ÉMILE' }, { name: '~eq:straße' }, { name: '~eq:σοφος' }, { name: '~eq:i̇stanbul' }, { name: '~eq:İ' },
  { name: '~eq:a_b' }, { name: '~eq:%' }, { name: '~eq:' }, { name: 'eq:Zeta@CORP.LOCAL' }, { name: 'neq:mu@CORP.LOCAL' },
  { name: ['~eq:zeta', '~eq:beta'] }, { name: ['~eq:zeta', 'eq:mu@CORP.LOCAL'], object_id: '~eq:1' }, { object_id: '~eq:ix-1' },
  { primary_kind: 'eq:User' }, { primary_kind: '~eq:comp', name: 'neq:alpha@CORP.LOCAL' }, { environments: ENV2 }, { environments: [ENV, ENV2], name: '~eq:a' },
];
const PAGES: Array<Record<string, string>> = [{}, { skip: '7', limit: '25' }, { skip: '200', limit: '25' }, { skip: '3', limit: '0' }, { skip: '500', limit: '5' }];

test('sorted and filtered member pages equal the database statement (ties, case, non-ASCII, environments, paging)', async () => {
  for (const sort of SORTS) {
    for (const filter of FILTERS) {
      for (const page of PAGES) {
        const query = { ...filter, ...page, ...(sort ? { sort_by: sort } : {}) };
        assert.deepEqual(await answer(query), await expected(query), JSON.stringify(query));
      }
    }
  }
});

test('the index follows membership changes (a new member, a removed selector)', async () => {
  const query = { name: '~eq:newcomer', sort_by: '-name' };
  assert.deepEqual((await answer(query)).count, 0);
  await upsertNodes(t.db.kysely, [{ objectid: 'IX-NEW', kinds: ['User', 'Base'], name: 'NEWCOMER@CORP.LOCAL', environmentId: ENV }]);
  await upsertEdges(t.db.kysely, [{ start: { objectid: 'IX-NEW' }, end: { objectid: 'IX-GROUP' }, kind: 'MemberOf' }]);
  const sel = await t.request({ method: 'POST', url: `/api/v2/asset-group-tags/${tagId}/selectors`, token: admin, body: { name: 'new', expansion: 0, seeds: [{ type: 1, value: 'IX-NEW' }] } });
  assert.equal(sel.statusCode, 201);
  assert.deepEqual(await answer(query), await expected(query));
  assert.equal((await answer(query)).count, 1);
  assert.equal((await t.request({ method: 'DELETE', url: `/api/v2/asset-group-tags/${tagId}/selectors/${sel.json().data.id}`, token: admin })).statusCode, 204);
  const after = { name: '~eq:newcomer', sort_by: 'name' };
  assert.deepEqual(await answer(after), await expected(after));
});

/** The members of a page as the database renders them (memberJson of its own rows), in the answer's order. */
async function renderedByDatabase(ids: number[]): Promise<unknown[]> {
  const rows = await t.db.kysely.selectFrom('asset_group_tag_members as m').innerJoin('nodes as n', 'n.id', 'm.node_id')
    .select(['m.node_id', 'm.objectid', 'm.name', 'm.primary_kind', 'm.environment_id', 'm.source', 'n.properties'])
    .where('m.tag_id', '=', tagId).where('m.node_id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [Number(r.node_id), JSON.parse(memberJson(r as MemberRow, tagId))]));
  return ids.map((id) => byId.get(id));
}

test('kept members JSON (read by pages, then the whole tag at once) is what the database renders, and follows node writes', async () => {
  const pages: Array<Record<string, string>> = [{ sort_by: 'name', skip: '0', limit: '25' }, { sort_by: '-objectid', skip: '100', limit: '30' }, { sort_by: '-name', name: '~eq:a', skip: '5', limit: '40' }];
  const whole = [{ sort_by: 'objectid', limit: '0' }]; // every member: most of them kept by the pass over the tag
  const check = async (queries: Array<Record<string, string>>) => {
    for (const query of queries) {
      const res = await t.request({ method: 'GET', url: `/api/v2/asset-group-tags/${tagId}/members`, token: admin, query });
      const members = (res.json() as { data: { members: Array<{ id: number }> } }).data.members;
      assert.ok(members.length > 0);
      assert.deepEqual(members, await renderedByDatabase(members.map((m) => m.id)), JSON.stringify(query));
    }
  };
  await check(pages); // the first pages read their rows and start the pass over the tag
  await new Promise((resolve) => setTimeout(resolve, 300));
  await check(whole);
  const all = await t.db.kysely.selectFrom('asset_group_tag_members').select('objectid').where('tag_id', '=', tagId).execute();
  await upsertNodes(t.db.kysely, all.map((m) => ({ objectid: m.objectid, kinds: ['Base'], properties: { kept_test: 'changed' } })));
  const res = await t.request({ method: 'GET', url: `/api/v2/asset-group-tags/${tagId}/members`, token: admin, query: { sort_by: 'name', limit: '5' } });
  for (const m of (res.json() as { data: { members: Array<{ properties: Record<string, unknown> }> } }).data.members) assert.equal(m.properties.kept_test, 'changed');
  await new Promise((resolve) => setTimeout(resolve, 300));
  await check(whole);
  await check(pages);
});

test('a page of a search found from its block counts = the walk from the nearer end, over random orders, sets and pages', async () => {
  const { blockCounts, pageOf } = await import('./members.index.ts');
  let seed = 7;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (const [size, density] of [[1, 1], [511, 0.5], [512, 0.01], [513, 1], [3000, 0.3], [5000, 0.002], [20_000, 0.9]]) {
    const order = Int32Array.from({ length: size }, (_, i) => i);
    for (let i = size - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const bits = Uint8Array.from({ length: size }, () => (random() < density ? 1 : 0));
    const count = bits.reduce((a, b) => a + b, 0);
    const blocks = blockCounts(order, bits);
    for (let k = 0; k < 60; k++) {
      const skip = Math.floor(random() * (count + 2));
      const limit = k % 7 === 0 ? 0 : 1 + Math.floor(random() * 40);
      assert.deepEqual(pageOf(order, bits, count, skip, limit, blocks), pageOf(order, bits, count, skip, limit), `${size} ${density} ${skip} ${limit}`);
    }
    for (const skip of [0, count - 1, count - 25, 511, 512, 513]) {
      if (skip < 0) continue;
      assert.deepEqual(pageOf(order, bits, count, skip, 25, blocks), pageOf(order, bits, count, skip, 25), `${size} ${density} ${skip}`);
    }
  }
});
