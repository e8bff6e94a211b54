import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CypherError } from './errors.ts';
import { AD_QUERIES, LIBRARY } from './library.test-helpers.ts';
import { PreparedCache, prepareCypher, prepareUncached } from './prepare.ts';

test('prepare cache: the same text prepared twice is the same (frozen) object, equal to an uncached preparation', () => {
  for (const { query } of AD_QUERIES.slice(0, 20)) {
    const first = prepareCypher(query);
    assert.equal(prepareCypher(query), first);
    assert.equal(prepareCypher(query, { mutations: false }), first);
    assert.deepEqual(first, prepareUncached(query));
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.query) && Object.isFrozen(first.query.parts[0].clauses[0]));
  }
  // Any other text (even one space more) is prepared on its own.
  const text = 'MATCH (n:User) RETURN n LIMIT 1';
  assert.notEqual(prepareCypher(`${text} `), prepareCypher(text));
});

test('prepare cache: the mutations flag is part of the key', () => {
  const cache = new PreparedCache(1024 * 1024);
  const read = 'MATCH (n:User) RETURN n LIMIT 1';
  assert.notEqual(cache.prepare(read, { mutations: true }), cache.prepare(read, { mutations: false }));
  assert.equal(cache.size, 2);
  const write = "MATCH (n:User) SET n.name = 'x'";
  assert.equal(cache.prepare(write, { mutations: true }).hasMutation, true);
  // Allowed with the flag, refused without it: a success under one flag never answers the other.
  assert.throws(() => cache.prepare(write, { mutations: false }), (err) => err instanceof CypherError && err.message.includes('updating clauses are not supported'));
  assert.throws(() => cache.prepare(write, { mutations: false }), CypherError);
  assert.equal(cache.size, 3);
});

test('prepare cache: bounded; errors are not kept; a huge text is not kept', () => {
  const cache = new PreparedCache(64 * 1024);
  const texts = Array.from({ length: 500 }, (_, i) => `MATCH (n:User) WHERE n.name = 'user${i}' RETURN n`);
  const first = cache.prepare(texts[0]);
  for (const t of texts) cache.prepare(t);
  assert.ok(cache.size > 0 && cache.size < 100, `size ${cache.size}`);
  // The oldest went out: preparing it again gives a new (equal) object.
  const again = cache.prepare(texts[0]);
  assert.notEqual(again, first);
  assert.deepEqual(again, first);
  const before = cache.size;
  assert.throws(() => cache.prepare('MATCH (n RETURN n'), CypherError);
  assert.equal(cache.size, before);
  const huge = `RETURN '${'x'.repeat(20_000)}' AS x`;
  assert.notEqual(cache.prepare(huge), cache.prepare(huge));
});

/** The preparation of a text, as a comparable value: the tree and columns, or the error message. */
function outcome(prepare: () => unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(prepare()));
  } catch (err) {
    assert.ok(err instanceof CypherError, String(err));
    return { error: err.message };
  }
}

test('prepare cache: texts differing only in string literals share one parse, and each prepares exactly as on its own (tree, offsets, columns, errors)', () => {
  const cache = new PreparedCache(16 * 1024 * 1024);
  const shapes = [
    (a: string, b: string) => `MATCH p=shortestPath((s:User {objectid: '${a}'})-[:AD_ATTACK_PATHS*1..]->(t:Group)) WHERE t.objectid = "${b}" RETURN p`,
    // A column named by its source text, and errors after the literals (unknown variable, syntax).
    (a: string, b: string) => `MATCH (n:User) WHERE n.name STARTS WITH '${a}'\nRETURN n.name + '${b}', toUpper('${a}')`,
    (a: string, b: string) => `MATCH (n {name: '${a}'})\n// it's a comment with 'quotes'\nRETURN m, '${b}'`,
    (a: string, b: string) => `MATCH (n {name: '${a}'}) RETRUN n, '${b}'`,
    (a: string, b: string) => `WITH '${a}' AS x /* "not a literal" */ RETURN x, \`we'ird\`, '${b}' AS y`,
    (a: string, b: string) => `RETURN '${a}' + 1 AS x, [x IN ['${b}'] WHERE x = '${a}'] AS y LIMIT -1`,
    (a: string, b: string) => `MATCH (n) SET n.name = '${a}' RETURN '${b}'`,
  ];
  const values = ['', 'a', 'S-1-5-21-3623811015-3361044348-30300820-1104', 'x // y', 'x /* y', 'é中\u{1F600}', ' \n ', 'it"s', '`', '\\n', "''"];
  for (const shape of shapes) {
    for (const a of values) {
      for (const b of values.slice(0, 5)) {
        const text = shape(a, b);
        assert.deepEqual(outcome(() => cache.prepare(text)), outcome(() => prepareUncached(text)), text);
        assert.deepEqual(outcome(() => cache.prepare(text, { mutations: true })), outcome(() => prepareUncached(text, { mutations: true })), text);
      }
    }
  }
  assert.ok(cache.shapeHits > 100, `shape hits ${cache.shapeHits}`);
});

test('prepare cache: fuzz: near-valid and random texts prepare (or fail) through shapes exactly as on their own', () => {
  const cache = new PreparedCache(1024 * 1024);
  const literal = fc.string({ maxLength: 12 }).filter((s) => !s.includes("'") && !s.includes('\\'));
  const variant = fc.tuple(fc.constantFrom(...LIBRARY.map((q) => q.query)), fc.array(literal, { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat({ max: 6 }))
    .map(([q, values, at, len]) => {
      let k = 0;
      const replaced = q.replace(/'[^'\\\n]*'/g, () => `'${values[k++ % values.length]}'`);
      const i = at % (replaced.length + 1);
      return len === 0 ? replaced : replaced.slice(0, i) + replaced.slice(i + len);
    });
  const same = (text: string) => {
    assert.deepEqual(outcome(() => cache.prepare(text)), outcome(() => prepareUncached(text)), text);
  };
  fc.assert(fc.property(variant, same), { numRuns: Number(process.env.SCENT_FUZZ_RUNS ?? 400) });
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 120 }).map((s) => `MATCH (n {name: 'x'}) ${s}`), same), { numRuns: Number(process.env.SCENT_FUZZ_RUNS ?? 400) });
});
