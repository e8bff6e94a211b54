import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { upsertNodes } from '../../graph/store.repository.ts';

let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  await upsertNodes(t.db.kysely, [
    { objectid: 'S-1-5-21-1', kinds: ['Domain', 'Base'], name: 'CORP.LOCAL', properties: { name: 'CORP.LOCAL', collected: true }, sourceKind: 'Base' },
    // Known only from a trust: not collected.
    { objectid: 'S-1-5-21-2', kinds: ['Domain', 'Base'], name: 'PARTNER.LOCAL', properties: { name: 'PARTNER.LOCAL', collected: false }, sourceKind: 'Base' },
    { objectid: 'S-1-5-21-3', kinds: ['Domain', 'Base'], name: null, properties: {}, sourceKind: 'Base' },
    { objectid: 'T-1', kinds: ['AZTenant', 'AZBase'], name: 'TENANT', properties: { name: 'TENANT', collected: true }, sourceKind: 'AZBase' },
    { objectid: 'U-1', kinds: ['User', 'Base'], name: 'U@CORP.LOCAL', properties: { name: 'U@CORP.LOCAL', collected: true }, sourceKind: 'Base' },
  ]);
});
after(() => t.close());

const get = (query: Record<string, string> = {}) => t.request({ method: 'GET', url: '/api/v2/available-domains', token: reader, query });
const ids = async (query: Record<string, string>) => {
  const res = await get(query);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data as Array<{ id: string }>).map((d) => d.id);
};

test('available-domains: Domain and AZTenant nodes with type, name and collected; filters and sorting as BloodHound', async () => {
  const all = (await get({ sort_by: 'objectid' })).json().data;
  assert.deepEqual(all, [
    { type: 'active-directory', name: 'CORP.LOCAL', id: 'S-1-5-21-1', collected: true },
    { type: 'active-directory', name: 'PARTNER.LOCAL', id: 'S-1-5-21-2', collected: false },
    { type: 'active-directory', name: 'NO NAME', id: 'S-1-5-21-3', collected: false },
    { type: 'azure', name: 'TENANT', id: 'T-1', collected: true },
  ]);
  // bhcli's stats and audit ask for the collected ones.
  assert.deepEqual(await ids({ collected: 'eq:true', sort_by: '-objectid' }), ['T-1', 'S-1-5-21-1']);
  assert.deepEqual(await ids({ collected: 'neq:true', sort_by: 'objectid' }), ['S-1-5-21-2', 'S-1-5-21-3']);
  assert.deepEqual(await ids({ name: 'eq:PARTNER.LOCAL' }), ['S-1-5-21-2']);
  assert.deepEqual(await ids({ objectid: 'neq:S-1-5-21-1', sort_by: 'name' }), ['S-1-5-21-3', 'S-1-5-21-2', 'T-1'], 'NO NAME sorts as the name it shows');
  assert.deepEqual(errorOf(await get({ sort_by: 'type' })), { status: 400, messages: ['column format does not support sorting: type'] });
  assert.equal(errorOf(await get({ name: '~eq:CORP' })).status, 400);
  assert.equal((await t.request({ method: 'GET', url: '/api/v2/available-domains' })).statusCode, 401);
});
