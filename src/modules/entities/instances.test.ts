/**
 * Two Scent instances on one database: instance A imports the SharpHound fixture set (ingest and
 * analysis, as `scent import` does in its own process); instance B, whose graph engine already holds
 * a snapshot of the empty graph, answers the new graph through HTTP (entity lists, paths, Cypher)
 * within a second of the import's end. On PostgreSQL the news travels by NOTIFY; on SQLite through
 * the file's data_version.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.ts';
import { issueSession } from '../../auth/sessions.ts';
import { testConfig } from '../../config.ts';
import type { Db } from '../../db/create-db.ts';
import { FIXTURES } from '../../test/fixture-path.ts';
import { ingestFiles } from '../../graph/ingest/ingest.service.ts';
import { DIALECT, sharedTestDb } from '../../test/harness.ts';
import { analyzeGraph } from '../data-quality/analysis.service.ts';
import { createUser } from '../users/users.service.ts';

const SID = 'S-1-5-21-909015691-3030120388-2582151266';
let shared: Awaited<ReturnType<typeof sharedTestDb>>;
let a: Db;
let b: Db;
let appB: FastifyInstance;
let token: string;

before(async () => {
  shared = await sharedTestDb();
  ({ a, b } = shared);
  const config = testConfig({ databaseUrl: shared.url, jwtSecret: 'test-secret-that-is-long-enough-for-hs256!!' });
  appB = await buildApp({ config, db: b });
  await appB.ready();
  const user = await createUser(a, { principalName: 'reader', email: 'reader@example.test', roleName: 'Read-Only' });
  token = (await issueSession(a, config, { userId: user.id }, 3600, 'test')).token;
});

after(async () => {
  await appB.close();
  await shared.close();
});

const onB = (method: 'GET' | 'POST', url: string, body?: unknown) =>
  appB.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, payload: body ? JSON.stringify(body) : undefined });

test(`a second instance answers the first one's import within a second (${DIALECT})`, async () => {
  // B has loaded its snapshot of the empty graph.
  assert.equal((await onB('GET', `/api/v2/groups/${SID}-513/members`)).statusCode, 404);
  assert.equal((await onB('POST', '/api/v2/graphs/cypher', { query: 'MATCH (u:User) RETURN u' })).statusCode, 404);

  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json') && !f.startsWith('expected')).sort();
  assert.deepEqual((await ingestFiles(a, files.map((f) => ({ path: FIXTURES + f })))).filter((o) => o.error), []);
  await analyzeGraph(a);
  const imported = performance.now();

  // Domain Users by primary group: every user but GUEST (hand-derived from users.json).
  const want = [500, 502, 1104, 1105, 1110, 1111, 1112, 1113, 1114, 1115, 1116, 1117].map((n) => `${SID}-${n}`).sort();
  let members: string[] = [];
  for (;;) {
    const res = await onB('GET', `/api/v2/groups/${SID}-513/members`, undefined);
    if (res.statusCode === 200) {
      const page = await onB('GET', `/api/v2/groups/${SID}-513/members?limit=0`);
      members = (page.json().data as Array<{ objectID: string }>).map((d) => d.objectID).sort();
      if (members.length === want.length) break;
    }
    assert.ok(performance.now() - imported < 1000, `B did not see the import within a second: ${res.statusCode} ${members.length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(members, want);
  // The rest of B's graph answers follow the same snapshot.
  const cypher = await onB('POST', '/api/v2/graphs/cypher', { query: 'MATCH (u:User) RETURN count(u) AS users' });
  assert.deepEqual(cypher.json().data.literals, [{ key: 'users', value: 14 }]);
  const path = await onB('GET', `/api/v2/graphs/shortest-path?start_node=${SID}-1115&end_node=${SID}-1106&relationship_kinds=in:MemberOf`);
  assert.equal(path.statusCode, 200, path.body);
  assert.equal(path.json().data.edges.length, 2, 'MARTINEZ → GROUP 2 → GROUP 1');
});
