/**
 * Property-based fuzz of the whole route (parse, check, plan, run, answer): random expressions in
 * every clause position and mutated Query Library queries, over HTTP on a small graph. Every input
 * answers 200, 404 or a 400 with a message; never a 5xx, never a hang (each request has a 10 s deadline).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { upsertEdges, upsertNodes } from '../../graph/store.repository.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { LIBRARY } from '../../cypher/library.test-helpers.ts';

const RUNS = Number(process.env.SCENT_FUZZ_RUNS ?? 150);
const D = 'S-1-5-21-7-7-7';
let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  const n = (rid: number, kind: string, name: string, properties: Record<string, unknown>) =>
    ({ objectid: `${D}-${rid}`, kinds: [kind, 'Base'], name, environmentId: D, properties: { name, ...properties }, sourceKind: 'Base' });
  await upsertNodes(t.db.kysely, [
    n(1001, 'User', 'ALICE@CORP.LOCAL', { enabled: true, hasspn: true, pwdlastset: 1000, serviceprincipalnames: ['a/b'], whencreated: -1 }),
    n(1002, 'User', 'BOB@CORP.LOCAL', { enabled: false, description: null, admincount: 1 }),
    n(512, 'Group', 'DOMAIN ADMINS@CORP.LOCAL', { highvalue: true }),
    n(2001, 'Computer', 'WS1.CORP.LOCAL', { enabled: true, operatingsystem: 'Windows 7', unconstraineddelegation: true }),
  ]);
  const e = (a: number, kind: string, b: number, properties: Record<string, unknown> = {}) => ({ start: { objectid: `${D}-${a}` }, end: { objectid: `${D}-${b}` }, kind, properties });
  await upsertEdges(t.db.kysely, [e(1001, 'MemberOf', 512, { isacl: false }), e(2001, 'HasSession', 1002), e(1002, 'AdminTo', 2001), e(512, 'GenericAll', 1002, { isacl: true })]);
});
after(() => t.close());

const { expr } = fc.letrec<{ expr: string; atom: string }>((tie) => ({
  atom: fc.constantFrom(
    '1', '-2', '0', '2.5', '1e308', '9223372036854775807', "'a'", '"B"', "''", 'true', 'false', 'null', '[1, 2]', '[]', "{k: 1}", '{}',
    'n', 'm', 'r', 'p', 'n.name', 'n.enabled', 'n.missing', 'n.serviceprincipalnames', 'r.isacl', 'datetime()', 'datetime().epochseconds',
    'range(1, 3)', 'count(*)', 'nodes(p)', 'relationships(p)', 'labels(n)', 'keys(n)', 'type(r)', 'id(n)',
  ),
  expr: fc.oneof(
    { depthSize: 'small' },
    tie('atom'),
    fc.tuple(fc.constantFrom('toUpper', 'toLower', 'size', 'toString', 'toInteger', 'toFloat', 'toBoolean', 'abs', 'head', 'last', 'tail',
      'reverse', 'trim', 'keys', 'labels', 'length', 'collect', 'count', 'sum', 'min', 'max', 'avg', 'isEmpty', 'properties', 'sqrt', 'round',
      'coalesce', 'startNode', 'endNode', 'type', 'exists'), tie('expr')).map(([f, x]) => `${f}(${x})`),
    fc.tuple(fc.constantFrom('split', 'left', 'right', 'substring', 'range', 'coalesce'), tie('expr'), tie('expr')).map(([f, x, y]) => `${f}(${x}, ${y})`),
    fc.tuple(tie('expr'), fc.constantFrom('+', '-', '*', '/', '%', '^', '=', '<>', '<', '>=', 'AND', 'OR', 'XOR', 'STARTS WITH', 'ENDS WITH',
      'CONTAINS', 'IN', '=~'), tie('expr')).map(([x, op, y]) => `(${x} ${op} ${y})`),
    fc.tuple(tie('expr'), fc.constantFrom(' IS NULL', ' IS NOT NULL', '[0]', '[-1]', '[0..1]', '.name', '[\'name\']')).map(([x, s]) => `(${x})${s}`),
    tie('expr').map((x) => `NOT ${x}`),
    fc.tuple(tie('expr'), tie('expr')).map(([x, y]) => `CASE WHEN ${x} THEN ${y} ELSE null END`),
    fc.tuple(tie('expr'), tie('expr')).map(([x, y]) => `[x IN ${x} WHERE x = ${y} | x]`),
    fc.tuple(fc.constantFrom('all', 'any', 'none', 'single'), tie('expr')).map(([q, x]) => `${q}(x IN ${x} WHERE x IS NOT NULL)`),
    tie('expr').map((x) => `reduce(s = 0, x IN ${x} | s + x)`),
  ),
}));

const MATCH = 'MATCH p = (n:User)-[r]->(m)';
const placed = fc.tuple(expr, fc.nat({ max: 6 })).map(([x, where]) => [
  `${MATCH} RETURN ${x} AS x LIMIT 5`,
  `${MATCH} WHERE ${x} RETURN n`,
  `${MATCH} WITH n, m, r, p ORDER BY ${x} RETURN p`,
  `UNWIND ${x} AS y RETURN y`,
  `MATCH (n) OPTIONAL MATCH (n)-[r]->(m) WITH n, m, r, null AS p RETURN DISTINCT ${x} AS x SKIP 1`,
  `${MATCH} WITH ${x} AS x, count(n) AS c RETURN x, c`,
  `MATCH (n {name: ${x}}) RETURN n`,
][where]);
const mutated = fc.tuple(fc.constantFrom(...LIBRARY.map((q) => q.query)), fc.nat(), fc.nat({ max: 12 }), expr)
  .map(([q, at, len, x]) => {
    const i = at % (q.length + 1);
    return q.slice(0, i) + (len % 3 === 0 ? ` ${x} ` : '') + q.slice(Math.min(q.length, i + len));
  });

async function answersCleanly(query: string): Promise<void> {
  const res = await t.request({ method: 'POST', url: '/api/v2/graphs/cypher', token: reader, body: { query, include_properties: true }, headers: { prefer: 'wait=10' } });
  assert.ok([200, 400, 404].includes(res.statusCode), `${res.statusCode} for ${JSON.stringify(query)}: ${res.body.slice(0, 300)}`);
  if (res.statusCode === 400) assert.ok(res.json().errors[0].message.length > 0);
}

test('random expressions in every clause position never answer a 5xx', async () => {
  await fc.assert(fc.asyncProperty(placed, answersCleanly), { numRuns: RUNS });
});

test('mutated Query Library queries never answer a 5xx', async () => {
  await fc.assert(fc.asyncProperty(mutated, answersCleanly), { numRuns: RUNS });
});
