import type { Generated, Selectable } from 'kysely';
import type { Micros } from '../db/time.ts';

/** Table of migration 0013-audit-logs. */
export interface AuditLogTable {
  id: Generated<number>;
  created_at: Micros;
  /** The user's or collection client's id; '' when nobody was authenticated. */
  actor_id: string;
  actor_name: string;
  actor_email: string;
  action: string;
  /** JSON object. */
  fields: string;
  request_id: string;
  source_ip_address: string;
  /** 'success' | 'failure' (BloodHound's 'intent' is never written: see src/audit/audit.ts). */
  status: string;
  commit_id: string;
}

export interface AuditTables {
  audit_logs: AuditLogTable;
}

export type AuditLogRow = Selectable<AuditLogTable>;
