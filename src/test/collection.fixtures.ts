/** Test helpers for the collection modules (clients, events, jobs). */
import assert from 'node:assert/strict';
import type { TestApp } from './harness.ts';

export async function makeClient(t: TestApp, admin: string, name: string, type = 'sharphound') {
  const res = await t.request({ method: 'POST', url: '/api/v2/clients', token: admin, body: { name, type } });
  assert.equal(res.statusCode, 200, res.body);
  const client = res.json().data as { id: string; name: string };
  const tok = await t.request({ method: 'PUT', url: `/api/v2/clients/${client.id}/token`, token: admin });
  assert.equal(tok.statusCode, 200, tok.body);
  return { ...client, token: tok.json().data.token as string };
}

export async function makeJob(t: TestApp, admin: string, clientId: string, body: Record<string, unknown> = {}) {
  const res = await t.request({ method: 'POST', url: `/api/v2/clients/${clientId}/jobs`, token: admin, body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { id: number; status: number; [k: string]: unknown };
}

export async function addNode(t: TestApp, objectid: string, kind: string, name: string, properties: Record<string, unknown> = {}) {
  await t.db.kysely.insertInto('nodes').values({
    objectid, kind, kinds: JSON.stringify([kind, 'Base']), name, environment_id: null,
    properties: JSON.stringify({ name, ...properties }), source_kind: 'Base', is_placeholder: 0, last_seen: Date.now() * 1000,
  }).execute();
}
