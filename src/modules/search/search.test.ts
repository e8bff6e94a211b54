import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type KyselyPlugin } from 'kysely';
import { createTestApp, createTestDb, DIALECT, errorOf, type TestApp } from '../../test/harness.ts';
import { upsertNodes } from '../../graph/store.repository.ts';
import { fewInside, graphSearchQueries, indexedPhasesQuery, rarePieces, searchNodes, searchPhases, substringQuery, takeTrigramSample, trigramSample } from './search.repository.ts';

let t: TestApp;
let reader: string;
before(async () => {
  t = await createTestApp();
  reader = (await t.login('Read-Only')).token;
  const n = (objectid: string, name: string, kind: string, extra: Record<string, unknown> = {}) =>
    ({ objectid, kinds: kind === 'ADLocalGroup' ? [kind, 'Base'] : [kind, 'Base'], name, properties: { name, ...extra }, sourceKind: 'Base' });
  await upsertNodes(t.db.kysely, [
    n('N1', 'ADMIN', 'Group', { distinguishedname: 'CN=ADMIN,DC=CORP' }),
    n('ADMIN', 'SOMETHING', 'User'), // exact objectid
    n('N3', 'ADMINISTRATORS@CORP', 'Group'),
    n('N4', 'Admins@corp', 'Group'), // prefix, in another case
    n('ADMIN-GUID-1', 'ZED', 'Computer'), // objectid prefix
    n('N6', 'DOMAIN ADMINS@CORP', 'Group'),
    n('N7', 'SERVERADMIN', 'User'),
    n('X-ADMIN-Y', 'AAA', 'User'), // objectid substring
    n('N9', 'ADMIN_LOCAL', 'ADLocalGroup'), // a local group that is not a Group: never listed
    n('N10', 'ADM', 'User'),
    n('N11', '100%_SURE', 'User'),
  ]);
  const id = Number((await t.db.kysely.selectFrom('nodes').select('id').where('objectid', '=', 'N6').executeTakeFirstOrThrow()).id);
  await t.db.kysely.insertInto('asset_group_tag_members').values({ tag_id: 1, node_id: id, source: 1, objectid: 'N6', name: 'DOMAIN ADMINS@CORP', primary_kind: 'Group', environment_id: null, ord: 0 }).execute();
});
after(() => t.close());

const search = (query: Record<string, string | string[]>) => t.request({ method: 'GET', url: '/api/v2/search', token: reader, query });
const found = async (query: Record<string, string | string[]>) => {
  const res = await search(query);
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().data as Array<{ objectid: string }>).map((d) => d.objectid);
};

test('search ranks exact matches, then name prefixes, then objectid prefixes, then name substrings; case-insensitive', async () => {
  // X-ADMIN-Y holds the text inside its objectid only: substrings are searched in names.
  assert.deepEqual(await found({ q: 'admin', limit: '0' }), ['N1', 'ADMIN', 'N3', 'N4', 'ADMIN-GUID-1', 'N6', 'N7']);
  assert.deepEqual(await found({ q: 'ADMIN', skip: '3', limit: '3' }), ['N4', 'ADMIN-GUID-1', 'N6']);
  assert.deepEqual(await found({ q: 'Admin' }), ['N1', 'ADMIN', 'N3', 'N4', 'ADMIN-GUID-1', 'N6', 'N7'], 'default limit 10');
  assert.deepEqual(await found({ q: 'x-admin' }), ['X-ADMIN-Y'], 'objectid prefix');
  assert.deepEqual(await found({ q: 'ad' }), ['N10', 'N1', 'N3', 'N4', 'ADMIN', 'ADMIN-GUID-1'], 'under 3 characters: exact and prefix matches only');
  assert.deepEqual(await found({ q: '0%_s' }), ['N11'], '% and _ are literal');
  assert.deepEqual(await found({ q: 'nothing like it' }), []);
  const res = await search({ q: 'admin', limit: '1' });
  assert.deepEqual(res.json(), { data: [{ objectid: 'N1', type: 'Group', name: 'ADMIN', distinguishedname: 'CN=ADMIN,DC=CORP', system_tags: '' }] });
  const tierZero = (await search({ q: 'domain admins' })).json().data[0];
  assert.deepEqual(tierZero, { objectid: 'N6', type: 'Group', name: 'DOMAIN ADMINS@CORP', distinguishedname: '', system_tags: 'admin_tier_0' });
});

test('search: a page of exact and prefix matches is one statement; the substring phase only when they do not fill it', async () => {
  const db = await createTestDb();
  try {
    await upsertNodes(db.kysely, ['USER1@X', 'USER10@X', 'USER11@X', 'USER2@X', 'SUPERUSER1@X'].map((name, i) => ({ objectid: `U${i}`, kinds: ['User', 'Base'], name, properties: { name }, sourceKind: 'Base' })));
    let statements = 0;
    const counting: KyselyPlugin = { transformQuery: (args) => args.node, transformResult: async (args) => (statements++, args.result) };
    const counted = { ...db, kysely: db.kysely.withPlugin(counting) };
    const ask = async (q: string, need: number) => {
      statements = 0;
      const names = (await searchNodes(counted, q, null, need)).map((r) => r.name);
      return { names, statements };
    };
    // PostgreSQL: a substring search takes the trigram sample in the background when there is none;
    // taken here first, so that the counts below are the searches' own.
    if (DIALECT === 'postgres') assert.ok((await takeTrigramSample(counted)).rows === 5);
    assert.deepEqual(await ask('user1', 2), { names: ['USER10@X', 'USER11@X'], statements: 1 });
    assert.deepEqual(await ask('user1', 10), { names: ['USER10@X', 'USER11@X', 'USER1@X', 'SUPERUSER1@X'], statements: 2 });
    assert.deepEqual(await ask('user1@x', 10), { names: ['USER1@X', 'SUPERUSER1@X'], statements: 2 }, 'exact, then the substring');
    assert.deepEqual(await ask('ser1', 10), { names: ['SUPERUSER1@X', 'USER10@X', 'USER11@X', 'USER1@X'], statements: 2 });
  } finally {
    await db.close();
  }
});

test(`search: the substring phase answers the same before the trigram sample is at hand (${DIALECT})`, async () => {
  const db = await createTestDb();
  try {
    await upsertNodes(db.kysely, ['USER1@X', 'SUPERUSER1@X', 'XSER1'].map((name, i) => ({ objectid: `U${i}`, kinds: ['User', 'Base'], name, properties: { name }, sourceKind: 'Base' })));
    const names = async () => (await searchNodes(db, 'ser1', null, 10)).map((r) => r.name);
    assert.equal(trigramSample(db), null, 'none yet (one is being taken now on PostgreSQL)');
    const without = await names();
    if (DIALECT === 'postgres') await takeTrigramSample(db);
    assert.deepEqual(without, ['SUPERUSER1@X', 'USER1@X', 'XSER1']);
    assert.deepEqual(await names(), without);
    if (DIALECT === 'postgres') assert.ok(trigramSample(db)?.counts.get('ser') === 3);
  } finally {
    await db.close();
  }
});

test('search on PostgreSQL: the trigram index is given the rarest pieces of the text', () => {
  const sample = { rows: 1000, names: [], counts: new Map([['use', 900], ['ser', 900], ['er5', 40], ['r52', 5], ['523', 9], ['234', 8], ['345', 30]]) };
  assert.deepEqual(rarePieces('USER52345', sample), ['r52', '234', '523']);
  assert.deepEqual(rarePieces('user', sample), ['ser'], 'only common pieces: the rarest one');
  assert.deepEqual(rarePieces('Ab@cd', sample), [], 'no piece of three letters or digits: the index is given the whole text');
  assert.deepEqual(rarePieces('xyz%_q', sample), ['xyz']);
});

test(`search: the substring phase with few matches (found first, then ordered) answers as the ordered one (${DIALECT})`, async () => {
  const sample = { rows: 3, counts: new Map(), names: ['user1@x', 'superuser1@x', 'xser1'] };
  assert.equal(fewInside('ser1', sample), false, 'all three hold it after their start');
  assert.equal(fewInside('user1@x', sample), false, 'one of three holds it inside (superuser1@x)');
  assert.equal(fewInside('user1@x', { ...sample, rows: 1000 }), true, 'one of a thousand');
  assert.equal(fewInside('zzz', sample), true);
  const few = { rows: 1_000_000, counts: new Map(), names: [] }; // says "few" for every text
  for (const q of ['admin', 'min', 'ADM', 'orp', '0%_s', 'nothing']) {
    for (const filter of [null, { kinds: ['User'], tagIds: [] }]) {
      const rows = async (s: typeof few | null) => (await substringQuery(t.db, q, filter, 10, s).execute()).map((r) => r.objectid);
      assert.deepEqual(await rows(few), await rows(null), `${q} ${JSON.stringify(filter)}`);
    }
  }
});

test('search type filter: kinds at any place, tag kinds, several kinds', async () => {
  assert.deepEqual(await found({ q: 'admin', type: 'User' }), ['ADMIN', 'N7']);
  assert.deepEqual(await found({ q: 'admin', type: ['Computer', 'User'] }), ['ADMIN', 'ADMIN-GUID-1', 'N7']);
  assert.deepEqual(await found({ q: 'admin', type: 'Tag_Tier_Zero' }), ['N6']);
  assert.deepEqual(await found({ q: 'admin_l', type: 'ADLocalGroup' }), [], 'as BloodHound: a local group that is not a Group is never listed');
  assert.equal((await found({ q: 'admin', type: 'Base' })).length, 7);
});

test('search and graph-search bad input: exact 400 messages; 401, 403', async () => {
  const cases: Array<[string, Record<string, string | string[]>, string]> = [
    ['search', {}, 'query parameter "q" is malformed'],
    ['search', { q: '' }, 'query parameter "q" is malformed'],
    ['search', { q: ['a', 'b'] }, 'query parameter "q" is malformed'],
    ['search', { q: 'a', type: 'NoSuchKind' }, 'query parameter "type" is malformed'],
    ['search', { q: 'a', type: 'Bad-Kind' }, 'query parameter "type" is malformed'],
    ['search', { q: 'a', skip: 'x' }, 'query parameter "skip" is malformed'],
    ['search', { q: 'a', name: 'x' }, 'the specified column cannot be filtered: name'],
    ['graph-search', {}, 'query parameter "query" is malformed'],
    ['graph-search', { query: 'a', type: 'partial' }, 'query parameter "type" is malformed'],
  ];
  for (const [url, query, message] of cases) {
    assert.deepEqual(errorOf(await t.request({ method: 'GET', url: `/api/v2/${url}`, token: reader, query })), { status: 400, messages: [message] }, `${url} ${JSON.stringify(query)}`);
  }
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/search', query: { q: 'a' } })), { status: 401, messages: ['authentication is invalid'] });
  const uploader = (await t.login('Upload-Only')).token;
  assert.deepEqual(errorOf(await t.request({ method: 'GET', url: '/api/v2/graph-search', token: uploader, query: { query: 'a' } })), { status: 403, messages: ['not authorized'] });
});

test('graph-search: prefix (fuzzy) or exact matches on name or objectid, as flat graph nodes', async () => {
  const ask = async (query: Record<string, string>) => {
    const res = await t.request({ method: 'GET', url: '/api/v2/graph-search', token: reader, query });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data as Record<string, { label: { text: string }; data: { objectid?: string; nodetype: string } }>;
    return Object.values(data).map((n) => n.label.text).sort();
  };
  assert.deepEqual(await ask({ query: 'admin' }), ['ADM', 'ADMIN', 'ADMIN_LOCAL', 'ADMINISTRATORS@CORP', 'Admins@corp', 'SOMETHING', 'ZED'].filter((x) => x !== 'ADM').sort());
  assert.deepEqual(await ask({ query: 'admin', type: 'exact' }), ['ADMIN', 'SOMETHING']);
  assert.deepEqual(await ask({ query: 'zzz' }), []);
});

test(`search reads through indexes, never a full scan of nodes (${DIALECT})`, async () => {
  const queries = [
    ...searchPhases(t.db, 'admin', null).flat().map((p) => p(10)),
    ...searchPhases(t.db, 'admin', { kinds: ['User'], tagIds: [] }).flat().map((p) => p(10)),
    ...searchPhases(t.db, 'admin', null, ['adm', 'min']).flat().map((p) => p(10)),
    indexedPhasesQuery(t.db, 'admin', null, 10),
    indexedPhasesQuery(t.db, 'admin', { kinds: ['User'], tagIds: [] }, 10),
    ...graphSearchQueries(t.db, 'admin', false, 100),
    ...graphSearchQueries(t.db, 'admin', true, 100),
  ];
  for (const q of queries) {
    const { sql: text, parameters } = q.compile();
    let plan: string;
    if (DIALECT === 'sqlite') {
      plan = (t.db.bulk as { database: import('better-sqlite3').Database }).database.prepare(`explain query plan ${text}`).all(...(parameters as unknown[]))
        .map((r) => (r as { detail: string }).detail).join('\n');
      assert.ok(!/SCAN nodes(?!_search VIRTUAL TABLE INDEX)/.test(plan), `full scan:\n${text}\n${plan}`);
    } else {
      plan = await t.db.kysely.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${text.replace(/\$(\d+)/g, (_, i) => pgLiteral(parameters[Number(i) - 1]))}`).execute(trx);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      assert.ok(!/Seq Scan on nodes/.test(plan), `full scan:\n${text}\n${plan}`);
    }
  }
});

test(`search: the prefix phases read their index in the page's order (name or objectid, then id), no sort of the range (${DIALECT})`, async () => {
  for (const q of [searchPhases(t.db, 'adm', null)[1][0](10), searchPhases(t.db, 'adm', null)[2][0](10)]) {
    const { sql: text, parameters } = q.compile();
    let plan: string;
    if (DIALECT === 'sqlite') {
      plan = (t.db.bulk as { database: import('better-sqlite3').Database }).database.prepare(`explain query plan ${text}`).all(...(parameters as unknown[]))
        .map((r) => (r as { detail: string }).detail).join('\n');
      assert.ok(!/TEMP B-TREE/.test(plan), `sorted:\n${text}\n${plan}`);
    } else {
      plan = await t.db.kysely.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_bitmapscan = off`.execute(trx);
        const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${text.replace(/\$(\d+)/g, (_, i) => pgLiteral(parameters[Number(i) - 1]))}`).execute(trx);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
      assert.ok(!/Sort/.test(plan), `sorted:\n${text}\n${plan}`);
    }
  }
});

function pgLiteral(v: unknown): string {
  return typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`;
}
