/**
 * Timestamps: decided once for both databases. Every timestamp column is a BIGINT holding
 * microseconds since the Unix epoch (UTC). JavaScript sees a plain `number` (safe: < 2^53 until
 * year 2255). The wire sees RFC-3339 with exactly six fraction digits. Both databases therefore
 * store, compare, index and return identical values.
 */
export type Micros = number;

/** The zero time of Go's time.Time, used by the nullable wrappers and unset timestamps. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

let last = 0;
/** Current time in microseconds, strictly increasing within this process. */
export function nowMicros(): Micros {
  const t = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  last = t > last ? t : last + 1;
  return last;
}

export function toRfc3339(micros: Micros | null | undefined): string {
  if (micros === null || micros === undefined) return ZERO_TIME;
  const ms = Math.floor(micros / 1000);
  const sub = micros - ms * 1000;
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, 23)}${String(sub).padStart(3, '0')}Z`;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export interface ParsedInstant {
  /** Whole microseconds (floor). */
  micros: Micros;
  /** True when the operand had sub-microsecond digits that were not zero. */
  fractional: boolean;
}

/** Parses an RFC-3339 timestamp (T separator, 1–9 fraction digits, Z or ±hh:mm). Null when invalid. */
export function parseRfc3339(value: string): ParsedInstant | null {
  const m = RFC3339.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', z, sign, oh, om] = m;
  const year = Number(y), month = Number(mo), day = Number(d);
  const hour = Number(h), minute = Number(mi), second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  const dim = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > dim) return null;
  let offsetMinutes = 0;
  if (!z) {
    const ohn = Number(oh), omn = Number(om);
    if (ohn > 23 || omn > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (ohn * 60 + omn);
  }
  const base = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59));
  if (year < 100) {
    // Date.UTC maps years 0-99 to 1900+; RFC-3339 years are literal.
    const fixed = new Date(base);
    fixed.setUTCFullYear(year);
    return finish(fixed.getTime());
  }
  return finish(base);

  function finish(epochMs: number): ParsedInstant {
    const padded = frac.padEnd(9, '0');
    const micros = (epochMs - offsetMinutes * 60_000) * 1000 + Number(padded.slice(0, 6));
    return { micros, fractional: Number(padded.slice(6)) !== 0 };
  }
}
