import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CypherError } from './errors.ts';
import { AD_QUERIES } from './library.test-helpers.ts';
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
