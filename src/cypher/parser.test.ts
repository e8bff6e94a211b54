import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clause, Expr, PatternPart, Query } from './ast.ts';
import { CypherError } from './errors.ts';
import { parseCypher } from './parser.ts';
import { prepareCypher } from './prepare.ts';
import { AD_QUERIES, LIBRARY } from './library.test-helpers.ts';

/** The tree without offsets, for comparisons. */
function bare<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (k, v) => (k === 'at' ? undefined : v)));
}
const clauses = (q: string): Clause[] => bare(parseCypher(q).parts[0].clauses);
const expr = (e: string): Expr => {
  const c = clauses(`RETURN ${e}`)[0];
  assert.equal(c.c, 'return');
  return (c as Extract<Clause, { c: 'return' }>).projection.items[0].expr;
};
const pattern = (p: string): PatternPart => (clauses(`MATCH ${p} RETURN 1`)[0] as Extract<Clause, { c: 'match' }>).patterns[0];
const errorOf = (q: string, mutations = false): string => {
  try {
    prepareCypher(q, { mutations });
  } catch (err) {
    assert.ok(err instanceof CypherError, String(err));
    return err.message;
  }
  assert.fail(`no error for ${q}`);
};
const v = (name: string): Expr => ({ t: 'var', name }) as Expr;
const lit = (value: null | boolean | number | string, float?: boolean): Expr =>
  (float ? { t: 'lit', value, float } : { t: 'lit', value }) as Expr;
const prop = (name: string, key: string): Expr => ({ t: 'prop', target: v(name), key }) as Expr;

test('clauses: MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN, ORDER BY, SKIP, LIMIT', () => {
  const cs = clauses('MATCH (n) OPTIONAL MATCH (m) WHERE m.x = 1 WITH DISTINCT n, m AS k UNWIND [1] AS i '
    + 'RETURN n ORDER BY n.name DESC, i SKIP 2 LIMIT 3');
  assert.deepEqual(cs.map((c) => c.c), ['match', 'match', 'with', 'unwind', 'return']);
  assert.equal((cs[1] as Extract<Clause, { c: 'match' }>).optional, true);
  assert.deepEqual((cs[1] as Extract<Clause, { c: 'match' }>).where, { t: 'cmp', ops: ['='], args: [prop('m', 'x'), lit(1)] });
  const w = cs[2] as Extract<Clause, { c: 'with' }>;
  assert.equal(w.projection.distinct, true);
  assert.deepEqual(w.projection.items.map((i) => [i.alias, i.text]), [[null, 'n'], ['k', 'm']]);
  const r = cs[4] as Extract<Clause, { c: 'return' }>;
  assert.deepEqual(r.projection.orderBy, [{ expr: prop('n', 'name'), descending: true }, { expr: v('i'), descending: false }]);
  assert.deepEqual([r.projection.skip, r.projection.limit], [lit(2), lit(3)]);
});

test('keywords in any case, comments, a final semicolon, RETURN *', () => {
  const q = 'match (n) // trailing\n/* block\n comment */ where n.enabled return * ;';
  assert.deepEqual(clauses(q).map((c) => c.c), ['match', 'return']);
  assert.equal((clauses(q)[1] as Extract<Clause, { c: 'return' }>).projection.star, true);
});

test('UNION and UNION ALL', () => {
  const q: Query = bare(parseCypher('RETURN 1 AS x UNION RETURN 2 AS x UNION ALL RETURN 3 AS x'));
  assert.equal(q.parts.length, 3);
  assert.deepEqual(q.unionAll, [false, true]);
});

test('node patterns: variable, labels, label expressions, property maps', () => {
  assert.deepEqual(pattern('(n:User:Base {name: "A"})').nodes[0], {
    variable: 'n',
    labels: { t: 'and', args: [{ t: 'label', name: 'User' }, { t: 'label', name: 'Base' }] },
    props: { t: 'map', entries: [['name', lit('A')]] },
  });
  assert.deepEqual(pattern('(:User|Computer)').nodes[0].labels, {
    t: 'or', args: [{ t: 'label', name: 'User' }, { t: 'label', name: 'Computer' }],
  });
  assert.deepEqual(pattern('(n:!Group&%)').nodes[0].labels, {
    t: 'and', args: [{ t: 'not', arg: { t: 'label', name: 'Group' } }, { t: 'anylabel' }],
  });
  assert.deepEqual(pattern('(:`odd label`)').nodes[0].labels, { t: 'label', name: 'odd label' });
  assert.deepEqual(pattern('()').nodes[0], { variable: null, labels: null, props: null });
});

test('relationship patterns: directions, types and alternatives, variable length bounds, property maps', () => {
  const dirs = ['(a)-->(b)', '(a)<--(b)', '(a)--(b)', '(a)<-->(b)'].map((p) => pattern(p).rels[0].direction);
  assert.deepEqual(dirs, ['out', 'in', 'both', 'both']);
  const r = pattern('(a)-[r:MemberOf|AdminTo|:CanRDP *1.. {isacl: true}]->(b)').rels[0];
  assert.deepEqual(r, {
    variable: 'r', types: ['MemberOf', 'AdminTo', 'CanRDP'], range: { min: 1, max: null },
    props: { t: 'map', entries: [['isacl', lit(true)]] }, direction: 'out',
  });
  const ranges = ['[*]', '[*2]', '[*..3]', '[*0..]', '[*2..5]', '[:X]'].map((d) => pattern(`(a)-${d}->(b)`).rels[0].range);
  assert.deepEqual(ranges, [{ min: null, max: null }, { min: 2, max: 2 }, { min: null, max: 3 }, { min: 0, max: null }, { min: 2, max: 5 }, null]);
  assert.equal(pattern('(a)-[:A]->(b)<-[:B]-(c)').nodes.length, 3);
});

test('path variables, shortestPath, allShortestPaths, several pattern parts', () => {
  const p = pattern('p=shortestPath((s:User)-[:AD_ATTACK_PATHS*1..]->(t))');
  assert.deepEqual([p.pathVariable, p.shortest, p.rels[0].types], ['p', 'shortest', ['AD_ATTACK_PATHS']]);
  assert.equal(pattern('allShortestPaths((a)-[*]-(b))').shortest, 'all');
  const m = clauses('MATCH (a), (b)-->(c) RETURN a')[0] as Extract<Clause, { c: 'match' }>;
  assert.equal(m.patterns.length, 2);
});

test('operator precedence: OR < XOR < AND < NOT < comparison < string/list/null predicates < + - < * / % < ^ < unary', () => {
  assert.deepEqual(expr('a OR b XOR c AND NOT d'), {
    t: 'or', args: [v('a'), { t: 'xor', args: [v('b'), { t: 'and', args: [v('c'), { t: 'not', arg: v('d') }] }] }],
  });
  assert.deepEqual(expr('NOT x IN y'), { t: 'not', arg: { t: 'strop', op: 'IN', left: v('x'), right: v('y') } });
  assert.deepEqual(expr('1 + 2 * 3 ^ 2'), {
    t: 'bin', op: '+', left: lit(1),
    right: { t: 'bin', op: '*', left: lit(2), right: { t: 'bin', op: '^', left: lit(3), right: lit(2) } },
  });
  assert.deepEqual(expr('a - b - c'), { t: 'bin', op: '-', left: { t: 'bin', op: '-', left: v('a'), right: v('b') }, right: v('c') });
  assert.deepEqual(expr('-a.x'), { t: 'neg', arg: prop('a', 'x') });
  assert.deepEqual(expr('1 < x <= 3'), { t: 'cmp', ops: ['<', '<='], args: [lit(1), v('x'), lit(3)] });
  assert.deepEqual(expr('a <> b').t === 'cmp' && (expr('a <> b') as { ops: string[] }).ops, ['<>']);
  assert.deepEqual((expr('a != b') as { ops: string[] }).ops, ['<>']);
});

test('string, regular-expression, list and null predicates', () => {
  const ops = ['STARTS WITH', 'ENDS WITH', 'CONTAINS', '=~', 'IN'];
  for (const op of ops) assert.deepEqual(expr(`n.x ${op.toLowerCase()} 'a'`), { t: 'strop', op, left: prop('n', 'x'), right: lit('a') });
  assert.deepEqual(expr('n.x IS NULL'), { t: 'isnull', arg: prop('n', 'x'), negated: false });
  assert.deepEqual(expr('n.x is not null'), { t: 'isnull', arg: prop('n', 'x'), negated: true });
});

test('literals: integers, floats, hex, strings with escapes, booleans in any case, null, lists, maps', () => {
  assert.deepEqual(expr('42'), lit(42));
  assert.deepEqual(expr('1.5'), lit(1.5, true));
  assert.deepEqual(expr('.5e1'), lit(5, true));
  assert.deepEqual(expr('0x1F'), lit(31));
  assert.deepEqual(expr(String.raw`'it\'s \\ \u00e9\n'`), lit("it's \\ \u00e9\n"));
  assert.deepEqual(expr('"double \\"quoted\\""'), lit('double "quoted"'));
  assert.deepEqual([expr('True'), expr('FALSE'), expr('null')], [lit(true), lit(false), lit(null)]);
  assert.deepEqual(expr("[-1.0, 0.0, '']"), {
    t: 'list', items: [{ t: 'neg', arg: lit(1, true) }, lit(0, true), lit('')],
  });
  assert.deepEqual(expr('[]'), { t: 'list', items: [] });
  assert.deepEqual(expr('{a: 1, `b c`: [2]}'), { t: 'map', entries: [['a', lit(1)], ['b c', { t: 'list', items: [lit(2)] }]] });
});

test('property lookup, index, slice, label predicates on expressions', () => {
  assert.deepEqual(expr('datetime().epochseconds'), { t: 'prop', target: { t: 'call', name: 'datetime', distinct: false, args: [] }, key: 'epochseconds' });
  assert.deepEqual(expr('n.`weird key`'), prop('n', 'weird key'));
  assert.deepEqual(expr('l[0]'), { t: 'index', target: v('l'), index: lit(0) });
  assert.deepEqual(expr('l[1..]'), { t: 'slice', target: v('l'), from: lit(1), to: null });
  assert.deepEqual(expr('(n:Tag_Tier_Zero)'), { t: 'haslabels', target: v('n'), labels: { t: 'label', name: 'Tag_Tier_Zero' } });
  assert.deepEqual(expr('n:User OR n:Computer'), {
    t: 'or', args: [
      { t: 'haslabels', target: v('n'), labels: { t: 'label', name: 'User' } },
      { t: 'haslabels', target: v('n'), labels: { t: 'label', name: 'Computer' } },
    ],
  });
});

test('functions: any case, DISTINCT, count(*), namespaced names', () => {
  assert.deepEqual(expr('COALESCE(n.a, "")'), { t: 'call', name: 'COALESCE', distinct: false, args: [prop('n', 'a'), lit('')] });
  assert.deepEqual(expr('COLLECT(DISTINCT(m))'), { t: 'call', name: 'COLLECT', distinct: true, args: [v('m')] });
  assert.deepEqual(expr('count(*)'), { t: 'countstar' });
  assert.deepEqual(expr('a.b.c(1)'), { t: 'call', name: 'a.b.c', distinct: false, args: [lit(1)] });
});

test('quantifiers, list comprehensions, pattern comprehensions, reduce, CASE', () => {
  assert.deepEqual(expr('NONE(x IN l WHERE x.a)'), { t: 'quant', kind: 'none', variable: 'x', list: v('l'), where: prop('x', 'a') });
  assert.deepEqual(expr('any(type IN n.spns WHERE type CONTAINS "a")').t, 'quant');
  assert.deepEqual(expr('[x IN l WHERE x > 1 | x * 2]'), {
    t: 'listcomp', variable: 'x', list: v('l'),
    where: { t: 'cmp', ops: ['>'], args: [v('x'), lit(1)] }, map: { t: 'bin', op: '*', left: v('x'), right: lit(2) },
  });
  assert.deepEqual(expr('[x IN l]'), { t: 'listcomp', variable: 'x', list: v('l'), where: null, map: null });
  assert.deepEqual(expr('[x IN l, 2]').t, 'list');
  const pc = expr('[(a)-[:MemberOf]->(g) WHERE g.x | g.name]');
  assert.equal(pc.t, 'patcomp');
  assert.equal((expr('[p = (a)-->() | p]') as Extract<Expr, { t: 'patcomp' }>).pattern.pathVariable, 'p');
  assert.deepEqual(expr('reduce(s = 0, x IN l | s + x)').t, 'reduce');
  assert.deepEqual(expr('CASE WHEN a THEN 1 ELSE 2 END'), { t: 'case', subject: null, whens: [[v('a'), lit(1)]], otherwise: lit(2) });
  assert.deepEqual(expr('CASE n.x WHEN 1 THEN "a" END'), { t: 'case', subject: prop('n', 'x'), whens: [[lit(1), lit('a')]], otherwise: null });
});

test('pattern predicates in WHERE; parenthesised expressions stay expressions', () => {
  const w = (clauses('MATCH (n), (m) WHERE (n)-[:SpoofSIDHistory|AbuseTGTDelegation]-(m) RETURN n')[0] as Extract<Clause, { c: 'match' }>).where!;
  assert.equal(w.t, 'pattern');
  assert.deepEqual(expr('(a) - (b)'), { t: 'bin', op: '-', left: v('a'), right: v('b') });
  assert.deepEqual(expr('((1 + 2))'), { t: 'bin', op: '+', left: lit(1), right: lit(2) });
});

test('updating clauses parse (and are refused unless mutations are enabled)', () => {
  const cs = clauses('MATCH (n) SET n.a = 1, n:X, n += {b: 2} REMOVE n.c, n:Y DETACH DELETE n CREATE (a:A)-[:R]->(b) RETURN a');
  assert.deepEqual(cs.map((c) => c.c), ['match', 'set', 'remove', 'delete', 'create', 'return']);
  assert.equal(errorOf('MATCH (n) SET n.a = 1'), 'line 1:10 updating clauses are not supported');
  assert.equal(errorOf('CREATE (n:User {name: "x"})'), 'line 1:0 updating clauses are not supported');
  assert.equal(prepareCypher('MATCH (n) SET n.a = 1', { mutations: true }).hasMutation, true);
  assert.equal(errorOf('MERGE (n:User)', true), 'line 1:0 MERGE is not supported');
  assert.equal(errorOf('MATCH (a), (b) CREATE (a)-[:AD_ATTACK_PATHS]->(b)', true),
    'line 1:25 relationship type shortcuts are not supported in graph mutations');
});

test('syntax errors name line and column (0-based, as BloodHound) and what was expected', () => {
  assert.match(errorOf('MATCH (n:User)\nWHER n.name = 1 RETURN n'), /^line 2:0 mismatched input 'WHER' expecting \{.*'MATCH'.*\}$/);
  assert.match(errorOf('MATCH (n) RETURN'), /^line 1:16 unexpected end of query expecting \{/);
  assert.match(errorOf('MATCH (n RETURN n'), /^line 1:9 mismatched input 'RETURN' expecting \{/);
  assert.match(errorOf('RETURN "unterminated'), /^line 1:7 mismatched input '"' expecting/);
  assert.equal(errorOf('   \n  '), 'invalid input');
  assert.equal(errorOf(''), 'invalid input');
  assert.match(errorOf('RETURN 1; RETURN 2'), /^line 1:10 mismatched input 'RETURN' expecting \{end of query\}$/);
});

test('unsupported constructs are refused by name, where they appear', () => {
  const cases: Array<[string, string]> = [
    ['CALL db.labels()', 'line 1:0 procedure invocation is not supported'],
    ['MATCH (n) WHERE n.name = $name RETURN n', 'line 1:25 user-specified parameters are not supported'],
    ['MATCH (n) WHERE n.name = {name} RETURN n', 'line 1:25 user-specified parameters are not supported'],
    ['EXPLAIN MATCH (n) RETURN n', 'line 1:0 EXPLAIN is not supported'],
    ['PROFILE MATCH (n) RETURN n', 'line 1:0 PROFILE is not supported'],
    ['MATCH (n) FOREACH (x IN [1] | SET n.a = x)', 'line 1:10 FOREACH is not supported'],
    ['LOAD CSV FROM "x" AS l RETURN l', 'line 1:0 LOAD CSV is not supported'],
    ['CREATE INDEX FOR (n:User) ON (n.name)', 'line 1:0 schema commands are not supported'],
    ['MATCH (n) WHERE EXISTS { MATCH (n)-->() } RETURN n', 'line 1:16 EXISTS subqueries are not supported'],
    ['MATCH (n WHERE n.a) RETURN n', 'line 1:9 WHERE inside a node pattern is not supported'],
    ['MATCH (n) USING INDEX n:User(name) RETURN n', 'line 1:10 USING hints are not supported'],
    ['MATCH (a), (b) RETURN shortestPath((a)-[*]-(b))', 'line 1:22 shortestPath and allShortestPaths are supported only in MATCH'],
    ['RETURN "\\q"', 'line 1:8 invalid escape sequence'],
    ['RETURN 99999999999999999999', 'line 1:7 integer is too large: 99999999999999999999'],
  ];
  for (const [q, message] of cases) assert.equal(errorOf(q), message, q);
});

test('semantic errors name line and column', () => {
  const cases: Array<[string, string]> = [
    ['MATCH (n) RETURN m', "line 1:17 variable 'm' not defined"],
    ['MATCH (n)\nWHERE count(n) > 1 RETURN n', 'line 2:6 aggregation (count) is not allowed here'],
    ['MATCH (n) WITH n.name RETURN n', 'line 1:15 expression in WITH must be aliased (use AS): n.name'],
    ['MATCH (n) RETURN foo(n)', "line 1:17 unknown function 'foo'"],
    ['MATCH (n) RETURN toUpper(n.a, 1)', "line 1:17 function 'toUpper' takes 1 argument, got 2"],
    ['MATCH p=(n) MATCH p=(m) RETURN p', "line 1:18 variable 'p' already declared"],
    ['MATCH (n)-[r]->(m), (r) RETURN n', "line 1:20 type mismatch: variable 'r' is a relationship, not a node"],
    ['MATCH (n) RETURN n, n', 'line 1:20 multiple result columns with the same name are not supported: n'],
    ['MATCH (n)', 'line 1:0 query cannot conclude with MATCH (must be RETURN or an update clause)'],
    ['RETURN 1 AS a UNION RETURN 2 AS b', 'line 1:20 all sub queries in an UNION must have the same return column names'],
    ['MATCH (n) WHERE (n)-->(m) RETURN n', "line 1:22 a pattern predicate cannot introduce new variables ('m')"],
    ['MATCH p=shortestPath((a)-[*]->(b)-[*]->(c)) RETURN p', 'line 1:6 shortestPath requires a pattern with exactly one relationship'],
    ['MATCH (a)-[*3..2]->(b) RETURN a', 'line 1:9 invalid range: the lower bound 3 is above the upper bound 2'],
    ['RETURN 1 RETURN 2', 'line 1:0 RETURN can only be used at the end of the query'],
    ['MATCH (n) RETURN upper(DISTINCT n)', "line 1:17 unknown function 'upper'"],
    ['MATCH (n) RETURN toLower(DISTINCT n.a)', "line 1:17 DISTINCT is only allowed in aggregate functions, not in 'toLower'"],
  ];
  for (const [q, message] of cases) assert.equal(errorOf(q), message, q);
});

test('scopes: WITH keeps only what it projects; comprehension variables are local', () => {
  assert.equal(errorOf('MATCH (n), (m) WITH n RETURN m'), "line 1:29 variable 'm' not defined");
  assert.equal(errorOf('MATCH (n) RETURN [x IN [1] | x], x'), "line 1:33 variable 'x' not defined");
  prepareCypher('MATCH (n) WITH n.name AS name ORDER BY n.objectid RETURN name');
  prepareCypher('MATCH (n) WITH n, count(*) AS c WHERE c > 1 RETURN n ORDER BY c DESC');
});

test('every query of the Query Library parses and passes the checks (154 Active Directory queries, 172 in all)', () => {
  assert.equal(AD_QUERIES.length, 154);
  for (const q of LIBRARY) assert.doesNotThrow(() => prepareCypher(q.query), q.name);
});
