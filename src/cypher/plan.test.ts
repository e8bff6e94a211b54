import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clause, Expr } from './ast.ts';
import { parseCypher } from './parser.ts';
import { conjuncts, estimateNodes, pushdownOf, requiredLabel } from './plan.ts';

const where = (q: string) => (parseCypher(`MATCH (n) WHERE ${q} RETURN n`).parts[0].clauses[0] as Extract<Clause, { c: 'match' }>).where!;
const push = (q: string) => pushdownOf(where(q), 'n');

test('pushdowns: comparisons, string predicates, lists, null tests, bare booleans', () => {
  assert.deepEqual(push('n.enabled = true'), { key: 'enabled', op: '=', value: true });
  assert.deepEqual(push('15 > n.minpwdlength'), { key: 'minpwdlength', op: '<', value: 15 });
  assert.deepEqual(push("n.objectid ENDS WITH '-512'"), { key: 'objectid', op: 'ends', value: '-512' });
  assert.deepEqual(push("toUpper(n.email) STARTS WITH 'X'"), { key: 'email', op: 'starts', value: 'X', caseInsensitive: true });
  assert.deepEqual(push("COALESCE(n.system_tags, '') CONTAINS 'admin_tier_0'"), { key: 'system_tags', op: 'contains', value: 'admin_tier_0' });
  assert.deepEqual(push('n.x IN [1, 2]'), { key: 'x', op: 'in', values: [1, 2] });
  assert.deepEqual(push("'DES-CBC-MD5' IN n.supportedencryptiontypes"), { key: 'supportedencryptiontypes', op: 'elem', value: 'DES-CBC-MD5' });
  assert.deepEqual(push('n.userpassword IS NOT NULL'), { key: 'userpassword', op: 'notnull' });
  assert.deepEqual(push('n.isacl'), { key: 'isacl', op: '=', value: true });
});

test('pushdowns: labels and tags, OR of pushdowns; presence tests; nothing for NOT, IS NULL, other variables or non-strict functions', () => {
  assert.deepEqual(push("(n:Tag_Tier_Zero) OR COALESCE(n.system_tags, '') CONTAINS 'admin_tier_0'"), {
    op: 'or', parts: [{ op: 'tag', label: 'Tag_Tier_Zero' }, { key: 'system_tags', op: 'contains', value: 'admin_tier_0' }],
  });
  assert.deepEqual(push('n:User OR n:Computer'), { op: 'or', parts: [{ op: 'kind', label: 'User' }, { op: 'kind', label: 'Computer' }] });
  // A predicate that is null where the property is null needs the property.
  const present = (key: string) => ({ key, op: 'notnull' });
  for (const [q, key] of [
    ['n.email <> ""', 'email'], ['1 <> n.a', 'a'], ['n.a <> m.b', 'a'], ['toUpper(n.a) <> "X"', 'a'], ['n.a = m.b', 'a'], ['size(n.a) > 2', 'a'],
    ["n.name =~ 'A.*'", 'name'], ['ANY(k IN n.serviceprincipalnames WHERE k CONTAINS "X")', 'serviceprincipalnames'], ['m.x IN n.list', 'list'],
  ]) assert.deepEqual(push(q), present(key), q);
  assert.deepEqual(push('n.a = 1 OR n.b <> m.c'), { op: 'or', parts: [{ key: 'a', op: '=', value: 1 }, present('b')] });
  for (const q of ['NOT n.enabled', 'n.a IS NULL', 'coalesce(n.a, 1) = 1', 'n.a = 1 OR m.b = 2', 'toString(n.a) = m.b', 'NOT n.a = 1']) assert.equal(push(q), null, q);
  // With an evaluator, closed expressions count as constants (datetime arithmetic, WITH constants).
  assert.deepEqual(pushdownOf(where('n.pwdlastset < 100 - 10'), 'n', () => 90), { key: 'pwdlastset', op: '<', value: 90 });
});

test('anchors: bound variables first, then objectid, tags and the smallest label with predicates', () => {
  const part = (q: string) => (parseCypher(q).parts[0].clauses[0] as Extract<Clause, { c: 'match' }>);
  const m = part("MATCH p=(:Base)-[:MemberOf*1..]->(g:Group) WHERE g.objectid ENDS WITH '-525' RETURN p");
  const counts = (l: string | null) => ({ Base: 1000, Group: 100 } as Record<string, number>)[l ?? ''] ?? 5000;
  const est = estimateNodes(m.patterns[0], new Set(), conjuncts(m.where), counts);
  assert.ok(est[1].score < est[0].score, JSON.stringify(est));
  const bound = estimateNodes(m.patterns[0], new Set(['g']), [], counts);
  assert.equal(bound[1].score, 0);
  const byId = part("MATCH (n:Base {objectid: 'S-1-5-21-1-512'})-[:MemberOf]->(g:Group) RETURN n");
  assert.ok(estimateNodes(byId.patterns[0], new Set(), [], counts)[0].score <= 2);
  // A property map's value that is a constant of the incoming row (`WITH "S-1-…" AS OID … {objectid: OID}`) pushes down as a literal.
  const byVar = part('MATCH p=()-[:GenericAll]->()-[:Contains*1..]->(:Base {objectid: OID}) RETURN p');
  const constant = (e: Expr) => (e.t === 'var' && e.name === 'OID' ? 'S-1-5-21-1-512' : undefined);
  const withOid = estimateNodes(byVar.patterns[0], new Set(), [], counts, constant);
  assert.deepEqual(withOid[2].pushdowns, [{ key: 'objectid', op: '=', value: 'S-1-5-21-1-512' }]);
  assert.ok(withOid[2].score <= 2 && withOid[2].score < withOid[0].score, JSON.stringify(withOid));
  assert.deepEqual(estimateNodes(byVar.patterns[0], new Set(), [], counts)[2].pushdowns, []);
  assert.equal(requiredLabel(part('MATCH (n:Tag_Tier_Zero:User) RETURN n').patterns[0].nodes[0].labels), 'User');
});
