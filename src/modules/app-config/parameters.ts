import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.ts';
import { badRequest } from '../../http/errors.ts';

/**
 * The parameters `PUT /api/v2/config` accepts: BloodHound's keys that mean something in Scent, each
 * with its value's validation (an object with exactly these members, as BloodHound's typed values).
 */
const DAY_MICROS = 24 * 3600 * 1_000_000;
const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;

/** An ISO-8601 duration (P90D, P1Y2M, PT12H, ...) in microseconds (a year 365 days, a month 30); null if not one. */
export function durationMicros(text: string): number | null {
  const m = DURATION.exec(text);
  if (!m) return null;
  const n = (s: string | undefined) => (s ? Number(s.slice(0, -1)) : 0);
  const days = n(m[1]) * 365 + n(m[2]) * 30 + n(m[3]) * 7 + n(m[4]);
  return (days * 24 * 3600 + n(m[6]) * 3600 + n(m[7]) * 60 + n(m[8])) * 1_000_000;
}

export const WRITABLE_PARAMETERS: Record<string, (value: Record<string, unknown>) => void> = {
  'auth.password_expiration_window': (value) => {
    const micros = typeof value.duration === 'string' ? durationMicros(value.duration) : null;
    if (!micros) throw badRequest('value.duration must be a positive ISO-8601 duration (e.g. P90D)');
  },
};

export const invalidParameter = (key: string) => badRequest(`Configuration parameter ${key} is not valid.`);

/** Checks a PUT /api/v2/config body as BloodHound does; throws its 400s. */
export function checkParameter(key: string, value: unknown): void {
  const check = WRITABLE_PARAMETERS[key];
  if (!check) throw invalidParameter(key);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0) {
    throw badRequest('missing or invalid property: value');
  }
  if (Object.keys(value).length !== 1) throw badRequest('value property contains an invalid field');
  check(value as Record<string, unknown>);
}

/** `auth.password_expiration_window` in microseconds (P90D when unreadable). */
export async function passwordExpirationMicros(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('parameters').select('value').where('key', '=', 'auth.password_expiration_window').executeTakeFirst();
  const duration = row ? (JSON.parse(row.value) as { duration?: unknown }).duration : undefined;
  return (typeof duration === 'string' && durationMicros(duration)) || 90 * DAY_MICROS;
}
