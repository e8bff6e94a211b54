import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestApp, errorOf, type TestApp } from '../../test/harness.ts';
import { axiosErrorOf } from '../../test/http-client.ts';
import { parseQueryZip } from './transfer.ts';
import { zipFiles } from '../../http/zip.ts';

let t: TestApp;
let alice: { token: string; userId: string };
let bob: { token: string; userId: string };
let admin: { token: string; userId: string };
const URL = '/api/v2/saved-queries';

before(async () => {
  t = await createTestApp();
  alice = await t.login('User');
  bob = await t.login('User');
  admin = await t.login('Administrator');
});
after(() => t.close());

const create = (token: string, body: unknown) => t.request({ method: 'POST', url: URL, token, body });

test('create, read, list with scope and filters, update, delete', async () => {
  const res = await create(alice.token, { name: 'kerberoastable', query: 'MATCH (u:User) WHERE u.hasspn RETURN u', description: 'spn users' });
  assert.equal(res.statusCode, 201);
  const q = res.json().data;
  assert.deepEqual(Object.keys(q), ['user_id', 'name', 'query', 'description', 'id', 'created_at', 'updated_at', 'deleted_at']);
  assert.deepEqual([q.user_id, q.name, q.description], [alice.userId, 'kerberoastable', 'spn users']);
  assert.deepEqual(q.deleted_at, { time: '0001-01-01T00:00:00Z', valid: false });

  const one = await t.request({ method: 'GET', url: `${URL}/${q.id}`, token: alice.token });
  assert.equal(one.json().data.query, 'MATCH (u:User) WHERE u.hasspn RETURN u');
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `${URL}/${q.id}`, token: bob.token })), { status: 404, messages: ['query not found'] });
  assert.equal((await t.request({ method: 'GET', url: `${URL}/${q.id}`, token: admin.token })).statusCode, 200);

  await create(alice.token, { name: 'domains', query: 'MATCH (d:Domain) RETURN d' });
  const list = await t.request({ method: 'GET', url: URL, token: alice.token, query: { name: '~eq:dom' } });
  assert.deepEqual([list.json().count, list.json().data.map((x: { name: string; scope: string }) => [x.name, x.scope])], [1, [['domains', 'owned']]]);
  assert.equal((await t.request({ method: 'GET', url: URL, token: bob.token })).json().count, 0);
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: URL, token: bob.token, query: { scope: 'mine' } })), { status: 400, messages: ['invalid scope parameter: mine'] });

  const put = await t.request({ method: 'PUT', url: `${URL}/${q.id}`, token: alice.token, body: { description: 'changed', name: '' } });
  assert.deepEqual([put.statusCode, put.json().data.name, put.json().data.description], [200, 'kerberoastable', 'changed']);
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: `${URL}/${q.id}`, token: bob.token, body: { name: 'x' } })), { status: 404, messages: ['query does not exist'] });
  assert.deepEqual(errorOf(await t.request({ method: 'DELETE', url: `${URL}/${q.id}`, token: bob.token })), { status: 403, messages: ['User does not have permission to delete this query'] });
  assert.equal((await t.request({ method: 'DELETE', url: `${URL}/${q.id}`, token: alice.token })).statusCode, 204);
  assert.deepEqual(errorOf(await t.request({ method: 'DELETE', url: `${URL}/${q.id}`, token: alice.token })), { status: 404, messages: ['query does not exist'] });
});

test('bad input: empty fields, duplicate names, malformed ids', async () => {
  assert.deepEqual(errorOf(await create(alice.token, { name: '', query: 'RETURN 1' })), { status: 400, messages: ['the name and/or query field is empty'] });
  assert.equal((await create(alice.token, { name: 'dup', query: 'RETURN 1' })).statusCode, 201);
  assert.deepEqual(errorOf(await create(alice.token, { name: 'dup', query: 'RETURN 2' })), { status: 400, messages: ['duplicate name for saved query: please choose a different name'] });
  assert.equal((await create(bob.token, { name: 'dup', query: 'RETURN 2' })).statusCode, 201, 'names are unique per user');
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `${URL}/abc`, token: alice.token })), { status: 400, messages: ['id is malformed'] });
  const readOnly = await t.login('Read-Only');
  assert.equal((await t.request({ method: 'GET', url: URL, token: readOnly.token })).statusCode, 200);
  const upload = await t.login('Upload-Only');
  assert.deepEqual(errorOf(await create(upload.token, { name: 'x', query: 'RETURN 1' })), { status: 403, messages: ['not authorized'] });
});

test('sharing: to users, public, private again; who may see and change it', async () => {
  const q = (await create(alice.token, { name: 'shared one', query: 'MATCH (n) RETURN n' })).json().data;
  const perms = `${URL}/${q.id}/permissions`;
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: perms, token: alice.token })), { status: 404, messages: ['no query permissions exist for saved query'] });
  const share = await t.request({ method: 'PUT', url: perms, token: alice.token, body: { user_ids: [bob.userId], public: false } });
  assert.equal(share.statusCode, 201);
  assert.deepEqual(share.json().data.map((p: { shared_to_user_id: string; public: boolean }) => [p.shared_to_user_id, p.public]), [[bob.userId, false]]);
  assert.deepEqual((await t.request({ method: 'GET', url: perms, token: alice.token })).json().data, { query_id: q.id, public: false, shared_to_user_ids: [bob.userId] });
  const bobs = await t.request({ method: 'GET', url: URL, token: bob.token, query: { scope: 'shared' } });
  assert.deepEqual(bobs.json().data.map((x: { name: string; scope: string }) => [x.name, x.scope]), [['shared one', 'shared']]);
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: perms, token: alice.token, body: { user_ids: [alice.userId] } })), { status: 400, messages: ['Cannot share query to self'] });
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: perms, token: alice.token, body: { user_ids: [bob.userId], public: true } })), { status: 400, messages: ['Public cannot be true while user_ids is populated'] });
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: perms, token: bob.token, body: { public: true } })), { status: 403, messages: ['Forbidden'] });

  // Bob removes himself; then Alice makes it public, and everybody sees it.
  const unshare = await t.request({ method: "DELETE", url: perms, token: bob.token, body: { user_ids: [bob.userId] } });
  assert.equal(unshare.statusCode, 204, unshare.body);
  assert.equal((await t.request({ method: 'PUT', url: perms, token: alice.token, body: { public: true } })).statusCode, 201);
  assert.deepEqual((await t.request({ method: 'GET', url: perms, token: bob.token })).json().data, { query_id: q.id, public: true, shared_to_user_ids: [] });
  const all = await t.request({ method: 'GET', url: URL, token: bob.token, query: { scope: 'all', name: 'shared one' } });
  assert.deepEqual(all.json().data.map((x: { scope: string }) => x.scope), ['public']);
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: perms, token: alice.token, body: { user_ids: [bob.userId] } })), { status: 400, messages: ['Public query cannot be shared to users. You must set your query to private first'] });
  // An administrator may change or delete a public query of someone else.
  assert.equal((await t.request({ method: 'PUT', url: `${URL}/${q.id}`, token: admin.token, body: { description: 'by admin' } })).statusCode, 200);
  // Private again (no users, not public): as BloodHound, only an administrator may do that to a public query.
  assert.deepEqual(errorOf(await t.request({ method: 'PUT', url: perms, token: alice.token, body: { user_ids: [], public: false } })), { status: 403, messages: ['Forbidden'] });
  assert.equal((await t.request({ method: 'PUT', url: perms, token: admin.token, body: { user_ids: [], public: false } })).statusCode, 204);
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `${URL}/${q.id}`, token: bob.token })), { status: 404, messages: ['query not found'] });
});

test('import JSON (an object or an array) and zip; export one and a scope; content types', async () => {
  const imp = (body: string | Buffer, type: string, token = alice.token) =>
    t.app.inject({ method: 'POST', url: `${URL}/import`, headers: { authorization: `Bearer ${token}`, 'content-type': type }, payload: body });
  const one = await imp(JSON.stringify({ query: 'MATCH (n:Group) RETURN n', name: 'groups', description: 'all groups' }), 'application/json');
  assert.deepEqual([one.statusCode, one.json()], [201, { data: "imported 1 queries" }], one.body);
  const many = await imp(JSON.stringify([{ query: 'RETURN 1', name: 'one' }, { query: 'RETURN 2', name: 'two', extra: true }]), 'application/json');
  assert.deepEqual(many.json(), { data: 'imported 2 queries' });
  const zip = zipFiles([{ name: 'a.json', data: JSON.stringify({ query: 'RETURN 3', name: 'three', description: '' }) }, { name: '__MACOSX/._a.json', data: 'junk' }]);
  const z = await imp(zip, 'application/zip');
  assert.deepEqual([z.statusCode, z.json()], [201, { data: 'imported 1 queries' }]);
  assert.deepEqual(errorOf(await imp('{nope', 'application/json')).messages[0].startsWith('failed to unmarshal json file: '), true);
  assert.deepEqual(errorOf(await imp('PK-not-a-zip', 'application/zip')), { status: 400, messages: ['zip: not a valid zip file'] });
  assert.deepEqual(errorOf(await imp('x', 'text/plain')), { status: 415, messages: ['invalid content-type: [text/plain]; Content type must be application/json or application/zip'] });
  assert.deepEqual(errorOf(await imp(JSON.stringify({ query: 'RETURN 1', name: 'groups' }), 'application/json')), { status: 400, messages: ['duplicate name for saved query: please choose a different name'] });

  const list = (await t.request({ method: 'GET', url: URL, token: alice.token, query: { name: 'groups' } })).json().data;
  const file = await t.request({ method: 'GET', url: `${URL}/${list[0].id}/export`, token: alice.token });
  assert.equal(file.headers['content-type'], 'application/octet-stream');
  assert.equal(file.headers['content-disposition'], 'attachment; filename="groups.json"');
  assert.deepEqual(JSON.parse(file.body), { query: 'MATCH (n:Group) RETURN n', name: 'groups', description: 'all groups' });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `${URL}/${list[0].id}/export`, token: bob.token })), { status: 404, messages: ['query does not exist'] });

  const all = await t.request({ method: 'GET', url: `${URL}/export`, token: alice.token, query: { scope: 'owned' } });
  assert.equal(all.headers['content-disposition'], 'attachment; filename="exported_queries.zip"');
  const back = await parseQueryZip(all.rawPayload);
  assert.ok(back.some((q) => q.name === 'groups' && q.query === 'MATCH (n:Group) RETURN n'));
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `${URL}/export`, token: alice.token })), { status: 400, messages: ['scope query parameter cannot be empty'] });
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `${URL}/export`, token: alice.token, query: { scope: 'x' } })), { status: 400, messages: ['invalid scope param: x'] });
});

test('import BloodHound\'s Query Library through the route (axios, as the UI sends a file): null descriptions, a name repeated across platforms', async () => {
  const { createClientApp } = await import('../../test/http-client.ts');
  const { LIBRARY } = await import('../../cypher/library.test-helpers.ts');
  const c = await createClientApp();
  try {
    const carol = await c.login('User');
    const http = c.http(carol.token);
    const entry = LIBRARY.find((q) => q.description === null)!;
    const one = await http.post(`${URL}/import`, entry, { headers: { 'content-type': 'application/json' } });
    assert.deepEqual([one.status, one.data], [201, { data: 'imported 1 queries' }]);
    const saved = (await http.get(URL, { params: { name: entry.name } })).data.data;
    assert.deepEqual(saved.map((q: { description: string; query: string }) => [q.description, q.query]), [['', entry.query]]);
    // The whole file: every entry, the AD / Azure pair "Disabled Tier Zero / High Value principals" told apart by platform.
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { SHARED_FIXTURES } = await import('../../test/fixture-path.ts');
    const file = readFileSync(join(SHARED_FIXTURES, 'bloodhound-query-library', 'Queries.json'), 'utf8');
    const dave = await c.login('User');
    const all = await c.http(dave.token).post(`${URL}/import`, file, { headers: { 'content-type': 'application/json' } });
    assert.deepEqual([all.status, all.data], [201, { data: `imported ${LIBRARY.length} queries` }]);
    const names = (await c.http(dave.token).get(URL, { params: { limit: 1000 } })).data.data.map((q: { name: string }) => q.name);
    assert.equal(names.length, LIBRARY.length);
    assert.ok(names.includes('Disabled Tier Zero / High Value principals') && names.includes('Disabled Tier Zero / High Value principals (Azure)'), JSON.stringify(names.filter((n: string) => n.startsWith('Disabled'))));
    // Importing it again collides with the saved names, as BloodHound: nothing is written.
    assert.deepEqual(axiosErrorOf(await c.http(dave.token).post(`${URL}/import`, file, { headers: { 'content-type': 'application/json' } })),
      { status: 400, messages: ['duplicate name for saved query: please choose a different name'] });
  } finally {
    await c.close();
  }
});
