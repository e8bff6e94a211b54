import { Type } from '@sinclair/typebox';
import { errorResponses, PageEnvelope } from '../../http/envelope.ts';
import { badRequest, Messages } from '../../http/errors.ts';
import { applyFilters, applyPaging, applySort, defineQuery } from '../../http/query/index.ts';
import { route } from '../../http/route.ts';
import { nowMicros } from '../../db/time.ts';
import { AuditLogSchema, toWireAuditLog } from './audit.schema.ts';

const YEAR = 365 * 24 * 3600 * 1_000_000;
const text = (column: string) => ({ kind: 'string' as const, column, predicates: ['eq' as const, 'neq' as const] });

/** BloodHound's filters, sort columns and paging (limit 1000; `offset` is its legacy name for skip). */
const auditQuery = defineQuery({
  filters: {
    id: { kind: 'integer', column: 'id' },
    created_at: { kind: 'timestamp', column: 'created_at' },
    actor_id: text('actor_id'),
    actor_name: text('actor_name'),
    actor_email: text('actor_email'),
    action: text('action'),
    request_id: text('request_id'),
    source_ip_address: text('source_ip_address'),
    status: text('status'),
  },
  sortable: {
    id: 'id', actor_name: 'actor_name', actor_email: 'actor_email', action: 'action', created_at: 'created_at',
    source_ip_address: 'source_ip_address', status: 'status',
  },
  defaultSort: [{ column: 'created_at', descending: true }],
  tieBreaker: 'id',
  paging: { defaultLimit: 1000 },
  params: {
    before: { type: 'timestamp', description: 'entries created at or before this instant (RFC-3339; default: now)' },
    after: { type: 'timestamp', description: 'entries created at or after this instant (RFC-3339; default: `before` minus 365 days)' },
    offset: { type: 'integer', min: 0, description: 'legacy name of `skip` (used when `skip` is absent)' },
  },
});

export const auditRoutes = [
  route({
    method: 'GET',
    url: '/api/v2/audit',
    config: { access: { permissions: ['audit_log/Read'] }, query: auditQuery },
    schema: {
      tags: ['audit'],
      summary: 'List audit log entries (one per audited request: success or failure), newest first',
      response: { 200: PageEnvelope(Type.Object({ logs: Type.Array(Type.Ref(AuditLogSchema)) })), ...errorResponses(400, 401, 403) },
    },
    handler: async (request) => {
      const parsed = request.parsedQuery;
      const before = (parsed.params.before as number | undefined) ?? nowMicros();
      const after = (parsed.params.after as number | undefined) ?? before - YEAR;
      if (after > before) throw badRequest(Messages.malformedParam('after'));
      const skip = 'skip' in (request.query as object) ? parsed.skip : ((parsed.params.offset as number | undefined) ?? 0);
      const base = applyFilters(request.server.db.kysely.selectFrom('audit_logs'), auditQuery, parsed)
        .where('created_at', '>=', after)
        .where('created_at', '<=', before);
      const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await applyPaging(applySort(base.selectAll(), auditQuery, parsed), { skip, limit: parsed.limit }).execute();
      return { count: Number(total.n), skip, limit: parsed.limit, data: { logs: rows.map(toWireAuditLog) } };
    },
  }),
];
