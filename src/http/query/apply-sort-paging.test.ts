import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyFilters, applyPaging, applySort, defineQuery, parseQuery, type CompiledQuery } from './index.ts';
import { Q } from '../../test/query-fixtures.ts';
import { DIALECT, openTestDb, seed, type TestDb } from '../../test/query-db.ts';

let t: TestDb;
before(async () => {
  t = await openTestDb();
  await seed(t.k);
});
after(async () => t?.close());

function listing(raw: Record<string, string | string[]>, q: CompiledQuery = Q) {
  const parsed = parseQuery(q, raw);
  return applyPaging(applySort(applyFilters(t.k.selectFrom('t').select('t.id'), q, parsed), q, parsed), parsed);
}
async function ids(raw: Record<string, string | string[]>, q: CompiledQuery = Q): Promise<number[]> {
  return (await listing(raw, q).execute()).map((r) => Number(r.id));
}
async function check(cases: Array<[Record<string, string | string[]>, number[]]>, q: CompiledQuery = Q): Promise<void> {
  for (const [raw, expected] of cases) assert.deepEqual(await ids(raw, q), expected, `${DIALECT} ${JSON.stringify(raw)}`);
}

// created_at order: 6 2 3 4 5 1 7 8 9 10; n: 6(-max) 2(-5) 3(0) 8,9(3) 10(4) 1,4,7(10) 5(max)
const BY_CREATED_DESC = [10, 9, 8, 7, 1, 5, 4, 3, 2, 6];

test(`${DIALECT}: default sort, ascending and descending, ties broken by the primary key`, () =>
  check([
    [{}, BY_CREATED_DESC],
    [{ sort_by: 'created_at' }, [...BY_CREATED_DESC].reverse()],
    [{ sort_by: 'n' }, [6, 2, 3, 8, 9, 10, 1, 4, 7, 5]],
    [{ sort_by: '-n' }, [5, 1, 4, 7, 10, 8, 9, 3, 2, 6]],
    [{ sort_by: ['-n', '-created_at'] }, [5, 7, 1, 4, 10, 9, 8, 3, 2, 6]],
    [{ sort_by: ['n', '-created_at'], n: ['3', '10'] }, [9, 8, 7, 1, 4]],
    [{ sort_by: '-id' }, [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]],
    [{ sort_by: 'id' }, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
  ]));

test(`${DIALECT}: NULLs last ascending and first descending on every database`, () =>
  check([
    [{ sort_by: 'deleted_at' }, [6, 9, 2, 4, 1, 3, 5, 7, 8, 10]],
    [{ sort_by: '-deleted_at' }, [1, 3, 5, 7, 8, 10, 4, 2, 9, 6]],
    [{ sort_by: ['-deleted_at', '-id'] }, [10, 8, 7, 5, 3, 1, 4, 2, 9, 6]],
  ]));

test('the tie-breaker is appended once, ascending, unless the sort already names it', () => {
  const sqlOf = (raw: Record<string, string | string[]>) => listing(raw).compile().sql.replace(/^.* order by /, 'order by ');
  assert.match(sqlOf({ sort_by: '-n' }), /^order by "t"\."n" desc nulls first, "t"\."id" asc limit/);
  assert.match(sqlOf({ sort_by: '-id' }), /^order by "t"\."id" desc nulls first limit/);
  assert.match(sqlOf({ sort_by: ['n', 'id'] }), /^order by "t"\."n" asc nulls last, "t"\."id" asc nulls last limit/);
  assert.match(sqlOf({}), /^order by "t"\."created_at" desc nulls first, "t"\."id" asc limit/);
  const noSort = defineQuery({ tieBreaker: 't.id' });
  const parsed = parseQuery(noSort, {});
  assert.match(applySort(t.k.selectFrom('t').select('t.id'), noSort, parsed).compile().sql, /order by "t"\."id" asc$/);
});

test(`${DIALECT}: skip and limit; limit=0 means no upper bound`, () =>
  check([
    [{ skip: '2', limit: '3' }, [8, 7, 1]],
    [{ limit: '1' }, [10]],
    [{ limit: '0' }, BY_CREATED_DESC],
    [{ skip: '8', limit: '0' }, [2, 6]],
    [{ skip: '8' }, [2, 6]],
    [{ skip: '10' }, []],
    [{ skip: '2147483647', limit: '2147483647' }, []],
    [{ skip: '0', limit: '2147483647' }, BY_CREATED_DESC],
    [{ sort_by: 'n', skip: '3', limit: '2' }, [8, 9]],
    [{ sort_by: 'n', skip: '5', limit: '2' }, [10, 1]],
  ]));

test(`${DIALECT}: the declared default limit applies`, () => {
  const small = defineQuery({ ...Q.declaration, paging: { defaultLimit: 3 } });
  return check(
    [
      [{}, [10, 9, 8]],
      [{ skip: '9' }, [6]],
      [{ limit: '0' }, BY_CREATED_DESC],
    ],
    small,
  );
});

test(`${DIALECT}: pages of every size partition the listing without overlap`, async () => {
  for (const sort_by of [['n'], ['-n'], ['-deleted_at'], ['created_at'], ['-deleted_at', 'n']]) {
    const whole = await ids({ sort_by, limit: '0' });
    for (let size = 1; size <= 4; size++) {
      const pages: number[] = [];
      for (let skip = 0; skip < whole.length; skip += size) {
        pages.push(...(await ids({ sort_by, skip: String(skip), limit: String(size) })));
      }
      assert.deepEqual(pages, whole, `${sort_by} by ${size}`);
    }
  }
});
