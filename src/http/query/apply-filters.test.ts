import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { toRfc3339 } from '../../db/time.ts';
import { applyFilters, parseQuery } from './index.ts';
import { Q } from '../../test/query-fixtures.ts';
import { BASE, DIALECT, openTestDb, seed, U1, U3, type TestDb } from '../../test/query-db.ts';
import { matchingIds } from '../../test/query-db.ts';

let t: TestDb;
before(async () => {
  t = await openTestDb();
  await seed(t.k);
});
after(async () => t?.close());

const ids = (raw: Record<string, string | string[]>) => matchingIds(t, raw);
const all = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const except = (...out: number[]) => all.filter((i) => !out.includes(i));
/** Timestamp at BASE + k micros; `extra` appends sub-microsecond digits. */
const T = (k: number, extra = '') => `${toRfc3339(BASE + k).slice(0, -1)}${extra}Z`;

async function check(cases: Array<[Record<string, string | string[]>, number[]]>): Promise<void> {
  for (const [raw, expected] of cases) assert.deepEqual(await ids(raw), expected, `${DIALECT} ${JSON.stringify(raw)}`);
}

test(`${DIALECT}: string eq / neq are exact and case-sensitive`, () =>
  check([
    [{ name: 'alice' }, [1]],
    [{ name: 'Alice' }, []],
    [{ name: 'eq:alice' }, [1]],
    [{ name: ['alice', 'Bob'] }, [1, 2]],
    [{ name: 'null' }, [9]],
    [{ name: 'a\\b' }, [5]],
    [{ name: 'a_b' }, [4]],
    [{ name: 'Élodie' }, [6]],
    [{ name: '' }, []],
    [{ name: 'neq:alice' }, except(1)],
    [{ name: ['neq:alice', 'neq:Bob'] }, except(1, 2)],
    [{ object_id: 'S-1' }, [1]],
    [{ object_id: 'neq:S-1' }, except(1)],
  ]));

test(`${DIALECT}: ~eq is a case-insensitive substring match with literal % _ \\`, () =>
  check([
    [{ name: '~eq:A' }, [1, 4, 5, 7, 8]],
    [{ name: '~eq:%' }, [3]],
    [{ name: '~eq:_' }, [4]],
    [{ name: '~eq:\\' }, [5]],
    [{ name: '~eq:a_' }, [4]],
    [{ name: '~eq:a%' }, []],
    [{ name: '~eq:a\\b' }, [5]],
    [{ name: '~eq:É' }, [6, 7]],
    [{ name: '~eq:é' }, [6, 7]],
    [{ name: '~eq:ÉL' }, [6, 7]],
    [{ name: '~eq:LOD' }, [6]],
    [{ name: '~eq:' }, all],
    [{ name: '~eq:"x"' }, [10]],
    [{ note: '~eq:CAF' }, [6, 7]],
    [{ note: '~eq:%' }, [3, 8]],
    [{ note: '~eq:null' }, [9]],
  ]));

test(`${DIALECT}: OR within a column for eq / ~eq, AND for the rest and across columns`, () =>
  check([
    [{ name: ['alice', '~eq:bo'] }, [1, 2]],
    [{ name: ['~eq:a', 'neq:ab'] }, [1, 4, 5, 7]],
    [{ name: ['~eq:a', '~eq:%'] }, [1, 3, 4, 5, 7, 8]],
    [{ name: ['~eq:a', 'neq:ab', 'neq:alice'] }, [4, 5, 7]],
    [{ enabled: 'true', n: '10' }, [1, 7]],
    [{ name: '~eq:a', status: 'ready' }, [1, 7]],
    [{ name: 'alice', n: '11' }, []],
  ]));

test(`${DIALECT}: null on nullable columns; neq keeps NULLs on them`, () =>
  check([
    [{ note: 'null' }, [2]],
    [{ note: 'eq:null' }, [2]],
    [{ note: 'neq:null' }, except(2)],
    [{ note: 'eq:café' }, [7]],
    [{ note: 'neq:café' }, except(7)],
    [{ note: ['null', 'café'] }, [2, 7]],
    [{ note: ['neq:null', 'neq:café'] }, except(2, 7)],
  ]));

test(`${DIALECT}: boolean compares against 0/1`, () =>
  check([
    [{ enabled: 'true' }, [1, 3, 5, 7, 9]],
    [{ enabled: 'T' }, [1, 3, 5, 7, 9]],
    [{ enabled: 'False' }, [2, 4, 6, 8, 10]],
    [{ enabled: 'neq:t' }, [2, 4, 6, 8, 10]],
    [{ enabled: ['t', 'f'] }, all],
    [{ flag: 't' }, [1, 4, 7, 10]],
    [{ flag: 'f' }, [3, 6, 9]],
    [{ flag: 'null' }, [2, 5, 8]],
    [{ flag: 'neq:null' }, [1, 3, 4, 6, 7, 9, 10]],
    [{ flag: 'neq:true' }, [2, 3, 5, 6, 8, 9]],
  ]));

test(`${DIALECT}: uuid compares lower-cased`, () =>
  check([
    [{ client_id: U1.toUpperCase() }, [1, 4]],
    [{ client_id: [U1, U3] }, [1, 4, 6]],
    [{ client_id: `neq:${U1}` }, except(1, 4)],
    [{ client_id: 'null' }, [2, 5, 7, 8, 10]],
    [{ client_id: 'neq:null' }, [1, 3, 4, 6, 9]],
  ]));

test(`${DIALECT}: integer predicates, negative and extreme values`, () =>
  check([
    [{ n: '10' }, [1, 4, 7]],
    [{ n: 'neq:10' }, [2, 3, 5, 6, 8, 9, 10]],
    [{ n: 'gt:3' }, [1, 4, 5, 7, 10]],
    [{ n: 'gte:3' }, [1, 4, 5, 7, 8, 9, 10]],
    [{ n: 'lt:0' }, [2, 6]],
    [{ n: 'lte:0' }, [2, 3, 6]],
    [{ n: 'eq:-5' }, [2]],
    [{ n: ['gte:0', 'lt:10'] }, [3, 8, 9, 10]],
    [{ n: ['gt:10', 'lt:0'] }, []],
    [{ n: '9007199254740991' }, [5]],
    [{ n: 'eq:-9007199254740991' }, [6]],
    [{ n: 'gt:-9007199254740991' }, except(6)],
    [{ n: ['3', '4', '10'] }, [1, 4, 7, 8, 9, 10]],
  ]));

test(`${DIALECT}: timestamps compare as exact instants, micro and sub-micro`, () =>
  check([
    [{ created_at: T(1) }, [2]],
    [{ created_at: 'eq:2024-01-01T02:00:00.000001+02:00' }, [2]],
    [{ created_at: 'eq:2023-12-31T21:30:00.000001-02:30' }, [2]],
    [{ created_at: `neq:${T(1)}` }, except(2)],
    [{ created_at: `gt:${T(7)}` }, [9, 10]],
    [{ created_at: `gte:${T(7)}` }, [8, 9, 10]],
    [{ created_at: `lt:${T(2)}` }, [2, 6]],
    [{ created_at: `lte:${T(2)}` }, [2, 3, 6]],
    [{ created_at: [`gte:${T(2)}`, `lt:${T(5)}`] }, [3, 4, 5]],
    [{ created_at: `eq:${T(1, '500')}` }, []],
    [{ created_at: `neq:${T(1, '500')}` }, all],
    [{ created_at: `gt:${T(1, '500')}` }, except(2, 6)],
    [{ created_at: `gte:${T(1, '500')}` }, except(2, 6)],
    [{ created_at: `lt:${T(1, '500')}` }, [2, 6]],
    [{ created_at: `lte:${T(1, '999')}` }, [2, 6]],
    [{ created_at: `gte:${T(1, '000')}` }, except(6)],
    [{ created_at: 'lt:9999-12-31T23:59:59.999999999Z' }, all],
    [{ created_at: 'gte:9999-12-31T23:59:59Z' }, []],
    [{ created_at: 'gt:0001-01-01T00:00:00Z' }, all],
    [{ created_at: 'lte:0001-01-01T00:00:00Z' }, []],
    [{ deleted_at: 'null' }, [1, 3, 5, 7, 8, 10]],
    [{ deleted_at: 'neq:null' }, [2, 4, 6, 9]],
    [{ deleted_at: `neq:${T(1)}` }, except(6)],
    [{ deleted_at: `neq:${T(1, '5')}` }, all],
    [{ deleted_at: `gt:${T(1)}` }, [2, 4, 9]],
    [{ deleted_at: [T(1), 'null'] }, [1, 3, 5, 6, 7, 8, 10]],
  ]));

test(`${DIALECT}: enum columns by name, number and name substring`, () =>
  check([
    [{ status: 'complete' }, [2, 4, 9]],
    [{ status: '2' }, [2, 4, 9]],
    [{ status: 'neq:COMPLETE' }, [1, 3, 5, 6, 7, 8, 10]],
    [{ status: '~eq:CAN' }, [5, 10]],
    [{ status: '~eq:complete' }, [2, 4, 6, 9]],
    [{ status: '~eq:zzz' }, []],
    [{ status: ['ready', '~eq:run'] }, [1, 3, 7, 8]],
    [{ status: ['~eq:zzz', 'neq:0'] }, []],
  ]));

test(`${DIALECT}: update and delete query builders take the same filters`, async () => {
  const parsed = parseQuery(Q, { name: '~eq:zzz' });
  const upd = await applyFilters(t.k.updateTable('t').set({ note: 'changed' }), Q, parsed).executeTakeFirst();
  assert.equal(Number(upd.numUpdatedRows), 0);
  await t.k.insertInto('t').values({ ...victim }).execute();
  const del = await applyFilters(t.k.deleteFrom('t'), Q, parseQuery(Q, { name: 'victim', n: 'lt:0' })).executeTakeFirst();
  assert.equal(Number(del.numDeletedRows), 1);
  assert.deepEqual(await ids({}), all);
});

const victim = {
  id: 99, name: 'victim', note: null, object_id: 'S-99', enabled: 0, flag: null, client_id: null,
  n: -1, created_at: BASE, deleted_at: null, status: 0,
};
