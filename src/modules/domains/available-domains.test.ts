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
    // A collected domain (SharpHound writes collected: true), one only a trust named, a collected tenant, others.
    { objectid: 'S-1-5-21-2', kinds: ['Domain', 'Base'], name: 'CORP.LOCAL', properties: { name: 'CORP.LOCAL', collected: true } },
    { objectid: 'S-1-5-21-1', kinds: ['Domain', 'Base'], name: 'TRUSTED.LOCAL', properties: { name: 'TRUSTED.LOCAL' } },
    { objectid: 'T-1', kinds: ['AZTenant', 'AZBase'], name: 'CONTOSO', properties: { name: 'CONTOSO', collected: true } },
    { objectid: 'S-1-5-21-2-500', kinds: ['User', 'Base'], name: 'ADMINISTRATOR@CORP.LOCAL', properties: {} },
  ]);
});
after(() => t.close());

const get = (query = '', token = reader) => t.request({ method: 'GET', url: `/api/v2/available-domains${query}`, token });

test('available-domains: Domain and AZTenant nodes in BloodHound\'s shape', async () => {
  const res = await get();
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), {
    data: [
      { type: 'active-directory', name: 'CORP.LOCAL', id: 'S-1-5-21-2', collected: true },
      { type: 'active-directory', name: 'TRUSTED.LOCAL', id: 'S-1-5-21-1', collected: false },
      { type: 'azure', name: 'CONTOSO', id: 'T-1', collected: true },
    ],
  });
});

test('available-domains: collected, name and objectid filters (eq / neq), sort_by objectid / name', async () => {
  const ids = async (query: string) => (await get(query)).json().data.map((d: { id: string }) => d.id);
  assert.deepEqual(await ids('?collected=true'), ['S-1-5-21-2', 'T-1']);
  assert.deepEqual(await ids('?collected=eq:false'), ['S-1-5-21-1']);
  assert.deepEqual(await ids('?collected=neq:true'), ['S-1-5-21-1']);
  assert.deepEqual(await ids('?name=CONTOSO'), ['T-1']);
  assert.deepEqual(await ids('?objectid=eq:S-1-5-21-1&objectid=eq:T-1'), ['S-1-5-21-1', 'T-1']);
  assert.deepEqual(await ids('?name=neq:CONTOSO&collected=true'), ['S-1-5-21-2']);
  assert.deepEqual(await ids('?sort_by=objectid'), ['S-1-5-21-1', 'S-1-5-21-2', 'T-1']);
  assert.deepEqual(await ids('?sort_by=-name'), ['S-1-5-21-1', 'S-1-5-21-2', 'T-1']);
  assert.deepEqual(await ids('?sort_by=name'), ['T-1', 'S-1-5-21-2', 'S-1-5-21-1']);
});

test('available-domains: bad input 400, permissions', async () => {
  assert.deepEqual(errorOf(await get('?sort_by=collected')), { status: 400, messages: ['column format does not support sorting: collected'] });
  assert.deepEqual(errorOf(await get('?type=azure')), { status: 400, messages: ['the specified column cannot be filtered: type'] });
  assert.deepEqual(errorOf(await get('?name=~eq:CORP')), { status: 400, messages: ['the specified filter predicate is not supported for this column: name ~eq'] });
  assert.deepEqual(errorOf(await get('?collected=maybe')), {
    status: 400, messages: ['there are errors in the query parameter filters specified: collected=maybe (expected true or false)'],
  });
  assert.equal(errorOf(await get('?skip=1')).status, 400, 'not a paged list');
  assert.deepEqual(errorOf(await get('', (await t.login('Upload-Only')).token)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/available-domains' })), { status: 401, messages: ['authentication is invalid'] });
});
