import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';

/**
 * The GPOs that apply to an object are those linked to the OUs and domain above it; the OU holding
 * a GPO object is not one of them (a walk that went on past the GPO counted every GPO linked above
 * the GPO's own container too: thousands per user on the large bench graph).
 *
 *   DOM ─Contains→ OUA ─Contains→ USR            GPX ─GPLink→ OUA
 *   DOM ─Contains→ OUB ─Contains→ GPX            GPY ─GPLink→ OUB
 */
let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  const sid = 'S-1-5-21-77';
  const n = (objectid: string, kind: string) => ({
    objectid, kinds: [kind, 'Base'], name: `${objectid}@GPO.TEST`, environmentId: sid, properties: { name: `${objectid}@GPO.TEST`, domainsid: sid }, sourceKind: 'Base',
  });
  await upsertNodes(t.db.kysely, [n(sid, 'Domain'), n('OUA', 'OU'), n('OUB', 'OU'), n('USR', 'User'), n('GPX', 'GPO'), n('GPY', 'GPO')]);
  const e = (start: string, kind: string, end: string) => ({ start: { objectid: start }, end: { objectid: end }, kind, properties: kind === 'GPLink' ? { enforced: false } : {} });
  await upsertEdges(t.db.kysely, [
    e(sid, 'Contains', 'OUA'), e('OUA', 'Contains', 'USR'), e(sid, 'Contains', 'OUB'), e('OUB', 'Contains', 'GPX'),
    e('GPX', 'GPLink', 'OUA'), e('GPY', 'GPLink', 'OUB'),
  ]);
});
after(() => t.close());

test('GPOs of a user: the links above it, not those above the OU that holds a linked GPO', async () => {
  const info = await t.request({ method: 'GET', url: '/api/v2/users/USR', token: reader });
  assert.equal(info.statusCode, 200, info.body);
  assert.equal(info.json().data.gpos, 1);
  const list = await t.request({ method: 'GET', url: '/api/v2/ous/OUA/gpos', token: reader, query: { limit: '0' } });
  assert.deepEqual(list.json().data.map((d: { objectID: string }) => d.objectID), ['GPX']);
});
