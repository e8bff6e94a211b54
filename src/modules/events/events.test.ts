import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { addNode, makeClient } from '../../test/collection.fixtures.ts';

let t: TestApp;
let admin: string;
before(async () => {
  t = await createTestApp({ schedulerInterval: 0 });
  admin = (await t.login('Administrator')).token;
});
after(() => t.close());

const RULE = 'DTSTART:20300101T020000Z\nRRULE:FREQ=DAILY;INTERVAL=1';

test('events: create, GET /events/{id} (spec 4.8) hydrated or not, list, replace, delete', async () => {
  const c = await makeClient(t, admin, 'events-client');
  await addNode(t, 'OU-EV-1', 'OU', 'WORKSTATIONS@CORP', { distinguishedname: 'OU=WS,DC=CORP' });
  const created = await t.request({
    method: 'POST', url: '/api/v2/events', token: admin,
    body: { client_id: c.id, rrule: RULE, title: 'nightly', session_collection: true, ous: ['OU-EV-1'], domains: ['S-1-5-21-7'] },
  });
  assert.equal(created.statusCode, 200, created.body);
  const ev = created.json().data;
  assert.deepEqual(Object.keys(ev).sort(), [
    'ad_structure_collection', 'all_trusted_domains', 'ca_registry_collection', 'cert_services_collection', 'client_id',
    'created_at', 'dc_registry_collection', 'deleted_at', 'domains', 'id', 'local_group_collection', 'ous', 'rrule',
    'session_collection', 'title', 'updated_at',
  ]);
  assert.equal(ev.rrule, RULE);
  assert.equal(ev.session_collection, true);

  const got = await t.request({ method: 'GET', url: `/api/v2/events/${ev.id}`, token: admin });
  assert.equal(got.statusCode, 200);
  assert.deepEqual(got.json().data.ous, [{ objectid: 'OU-EV-1', name: 'WORKSTATIONS@CORP', exists: true, distinguishedname: 'OU=WS,DC=CORP', type: 'OU' }]);
  assert.deepEqual(got.json().data.domains, [{ objectid: 'S-1-5-21-7', name: '', exists: false, type: 'Domain' }]);
  const plain = await t.request({ method: 'GET', url: `/api/v2/events/${ev.id}?hydrate_ous=false&hydrate_domains=false`, token: admin });
  assert.deepEqual([plain.json().data.ous, plain.json().data.domains], [['OU-EV-1'], ['S-1-5-21-7']]);

  const list = await t.request({ method: 'GET', url: `/api/v2/events?client_id=${c.id}`, token: admin });
  assert.deepEqual(list.json().data.map((e: { id: number }) => e.id), [ev.id]);

  const replaced = await t.request({ method: 'PUT', url: `/api/v2/events/${ev.id}`, token: admin, body: { client_id: c.id, rrule: 'FREQ=WEEKLY;BYDAY=MO' } });
  assert.equal(replaced.statusCode, 200, replaced.body);
  assert.match(replaced.json().data.rrule, /^DTSTART:\d{8}T\d{6}Z\nRRULE:FREQ=WEEKLY;BYDAY=MO$/);
  assert.equal(replaced.json().data.session_collection, false);
  assert.deepEqual(replaced.json().data.ous, []);

  assert.equal((await t.request({ method: 'DELETE', url: `/api/v2/events/${ev.id}`, token: admin })).statusCode, 200);
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `/api/v2/events/${ev.id}`, token: admin })), { status: 404, messages: ['resource not found'] });
});

test('events: bad input, unknown ids, permissions', async () => {
  const c = await makeClient(t, admin, 'events-bad');
  const create = (body: unknown, token = admin) => t.request({ method: 'POST', url: '/api/v2/events', token, body });
  assert.deepEqual(errorOf(await create({ client_id: c.id, rrule: 'FREQ=MINUTELY' })), { status: 400, messages: ['invalid rrule specified: the frequency must be HOURLY or less frequent'] });
  assert.deepEqual(errorOf(await create({ client_id: c.id, rrule: 'NONSENSE' })), { status: 400, messages: ["invalid rrule specified: Unknown RRULE property 'NONSENSE'"] });
  assert.deepEqual(errorOf(await create({ client_id: c.id, rrule: 'INTERVAL=2' })), { status: 400, messages: ['invalid rrule specified: FREQ is required'] });
  assert.deepEqual(errorOf(await create({ client_id: '00000000-0000-4000-8000-000000000000', rrule: RULE })), { status: 400, messages: ['client id is invalid'] });
  assert.deepEqual(errorOf(await create({ rrule: RULE, ous: 'x' })), { status: 400, messages: ['client_id is required', 'ous must be array'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/events/99999', token: admin })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/events/x1', token: admin })), { status: 400, messages: ['id is malformed'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/events/1?colour=red', token: admin })), { status: 400, messages: ['the specified column cannot be filtered: colour'] });
  const user = (await t.login('User')).token;
  const readOnly = (await t.login('Read-Only')).token;
  assert.deepEqual(errorOf(await create({ client_id: c.id, rrule: RULE }, user)), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/events/1', token: readOnly })), { status: 403, messages: ['not authorized'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/events/99999', token: user })), { status: 404, messages: ['resource not found'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/events/1', token: c.token })), { status: 403, messages: ['not authorized'] });
});
