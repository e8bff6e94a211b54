/**
 * GET /events/{id} answered from an event's kept text (events.service.ts keptEventText) through real HTTP: the same
 * bytes as the route's serializer gives the same event (every hydration, strings that need escaping), and never a
 * text made before the event was replaced or deleted, or before an OU it names was renamed. The response cache is off
 * here, so every answer is the route's own.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createClientApp, type ClientApp } from '../../test/http-client.ts';
import { addNode, makeClient } from '../../test/collection.fixtures.ts';
import { keptEventText } from './events.service.ts';

let c: ClientApp;
let admin: string;
before(async () => {
  c = await createClientApp({ schedulerInterval: 0, responseCacheMb: 0 });
  admin = (await c.login('Administrator')).token;
});
after(() => c.close());

const RULE = 'DTSTART:20300101T020000Z\nRRULE:FREQ=DAILY;INTERVAL=1';
const COMBOS = [
  { ous: true, domains: true },
  { ous: false, domains: true },
  { ous: true, domains: false },
  { ous: false, domains: false },
];
const query = (f: { ous: boolean; domains: boolean }) => `?hydrate_ous=${f.ous}&hydrate_domains=${f.domains}`;

/** The answer's bytes as sent (decoded from gzip when gzipped), and its status. */
async function raw(url: string): Promise<{ status: number; text: string }> {
  const res = await c.http(admin).get(url, { responseType: 'text', transformResponse: (d: unknown) => d });
  return { status: res.status, text: res.data as string };
}

/** Any write to client_events: the next GET of an event reads the table again and answers through the serializer. */
let bumps = 0;
async function touchEvents(clientId: string) {
  const res = await c.http(admin).post('/api/v2/events', { client_id: clientId, rrule: RULE, title: `bump-${++bumps}` });
  assert.equal(res.status, 200);
}

/** For every hydration: the serializer's answer (first GET after a write), then the kept text's (same bytes). */
async function answers(id: number, clientId: string): Promise<string[]> {
  const out: string[] = [];
  for (const f of COMBOS) {
    await touchEvents(clientId);
    // On PostgreSQL the write's own notification may come after this GET read the table: the events read again.
    let serialized = await raw(`/api/v2/events/${id}${query(f)}`);
    for (let tries = 0; keptEventText(c.db, id, f) === undefined && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      serialized = await raw(`/api/v2/events/${id}${query(f)}`);
    }
    assert.equal(serialized.status, 200, serialized.text);
    assert.equal(keptEventText(c.db, id, f), serialized.text, `kept text ${query(f)}`);
    const kept = await raw(`/api/v2/events/${id}${query(f)}`);
    assert.equal(kept.text, serialized.text, `kept answer ${query(f)}`);
    out.push(kept.text);
  }
  return out;
}

test('GET /events/{id}: the kept text is the serializer\'s bytes, and is never served after the event or its OU changed', async () => {
  const client = await makeClient(c, admin, 'event-text-client');
  const odd = 'quote " backslash \\ newline \n tab \t bell \u0007 </script> \u2028 ünïcødé 😀';
  await addNode(c, 'OU-TEXT-1', 'OU', `OU ${odd}@CORP`, { distinguishedname: `OU=${odd},DC=CORP` });
  await addNode(c, 'S-1-5-21-77', 'Domain', 'CORP.LOCAL');
  const created = await c.http(admin).post('/api/v2/events', {
    client_id: client.id, rrule: RULE, title: `nightly ${odd}`, session_collection: true, all_trusted_domains: true,
    ous: ['OU-TEXT-1', 'ou-unknown-2', 'OU-TEXT-1'], domains: ['s-1-5-21-77', 'S-1-5-21-404'],
  });
  assert.equal(created.status, 200);
  const id = created.data.data.id as number;

  const first = await answers(id, client.id);
  const hydrated = JSON.parse(first[0]).data;
  assert.equal(hydrated.title, `nightly ${odd}`);
  assert.deepEqual(hydrated.ous.map((o: { name: string; exists: boolean }) => [o.name, o.exists]),
    [[`OU ${odd}@CORP`, true], ['', false], [`OU ${odd}@CORP`, true]]);
  assert.deepEqual(hydrated.domains.map((d: { name: string; exists: boolean }) => [d.name, d.exists]), [['CORP.LOCAL', true], ['', false]]);
  assert.deepEqual(JSON.parse(first[3]).data.ous, ['OU-TEXT-1', 'ou-unknown-2', 'OU-TEXT-1']);

  // Replaced: every hydration's kept text was made before; each answer is the new event, kept or not.
  const replaced = await c.http(admin).put(`/api/v2/events/${id}`, {
    client_id: client.id, rrule: RULE, title: 'retitled', local_group_collection: true, ous: ['ou-unknown-3'], domains: [],
  });
  assert.equal(replaced.status, 200);
  for (const f of COMBOS) {
    for (let i = 0; i < 2; i++) {
      const got = JSON.parse((await raw(`/api/v2/events/${id}${query(f)}`)).text).data;
      assert.equal(got.title, 'retitled', `${query(f)} #${i}`);
      assert.equal(got.session_collection, false);
      assert.equal(got.local_group_collection, true);
      assert.deepEqual(got.ous, f.ous ? [{ objectid: 'ou-unknown-3', name: '', exists: false, distinguishedname: '', type: 'OU' }] : ['ou-unknown-3']);
      assert.deepEqual(got.domains, []);
      assert.equal(got.updated_at, replaced.data.data.updated_at);
    }
  }
  assert.equal(JSON.parse((await answers(id, client.id))[0]).data.title, 'retitled');

  // The OU renamed in the graph (nodes written, client_events not): the hydrated text names the new name.
  const again = await c.http(admin).put(`/api/v2/events/${id}`, { client_id: client.id, rrule: RULE, title: 'back', ous: ['OU-TEXT-1'] });
  assert.equal(again.status, 200);
  await answers(id, client.id);
  await c.db.kysely.updateTable('nodes').set({ name: 'RENAMED@CORP' }).where('objectid', '=', 'OU-TEXT-1').execute();
  for (let i = 0; i < 2; i++) {
    const got = JSON.parse((await raw(`/api/v2/events/${id}`)).text).data;
    assert.equal(got.ous[0].name, 'RENAMED@CORP', `#${i}`);
  }

  // Deleted: 404 for every hydration, kept text or not.
  assert.equal((await c.http(admin).delete(`/api/v2/events/${id}`)).status, 200);
  for (const f of COMBOS) {
    for (let i = 0; i < 2; i++) assert.equal((await raw(`/api/v2/events/${id}${query(f)}`)).status, 404, `${query(f)} #${i}`);
  }
  assert.throws(() => keptEventText(c.db, id, COMBOS[0]), /resource not found/);
});
