/** Shared declaration and assertions for the query-engine tests. */
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.ts';
import { defineQuery } from '../http/query/index.ts';

export const STATUS = { Ready: 0, Running: 1, Complete: 2, Canceled: 3, 'Partially Complete': 4 };

export const Q = defineQuery({
  filters: {
    name: { kind: 'string', column: 't.name' },
    note: { kind: 'string', column: 't.note', nullable: true },
    object_id: { kind: 'string', column: 't.object_id', predicates: ['eq', 'neq'] },
    enabled: { kind: 'boolean', column: 't.enabled' },
    flag: { kind: 'boolean', column: 't.flag', nullable: true },
    client_id: { kind: 'uuid', column: 't.client_id', nullable: true },
    n: { kind: 'integer', column: 't.n' },
    created_at: { kind: 'timestamp', column: 't.created_at' },
    deleted_at: { kind: 'timestamp', column: 't.deleted_at', nullable: true },
    status: { kind: 'string', column: 't.status', enum: STATUS },
  },
  sortable: { name: 't.name', note: 't.note', n: 't.n', created_at: 't.created_at', deleted_at: 't.deleted_at', id: 't.id' },
  defaultSort: [{ column: 'created_at', descending: true }],
  tieBreaker: 't.id',
  paging: { defaultLimit: 50 },
  params: {
    hydrate: { type: 'boolean', default: true },
    depth: { type: 'integer', min: -5, max: 10, default: 1 },
    type: { type: 'string', enum: ['list', 'graph'], default: 'list' },
    label: { type: 'string' },
    environments: { type: 'string[]' },
    start: { type: 'timestamp' },
  },
});

/** Asserts that fn throws ApiError 400 with exactly this one message. */
export function throws400(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.status, 400);
    assert.deepEqual(err.messages, [message]);
    return true;
  });
}
