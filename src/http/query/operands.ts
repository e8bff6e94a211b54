/**
 * Operand formats of seed table 4.1, shared by filters and declared parameters. Each parser
 * returns undefined when the text does not have its format.
 */
import { parseRfc3339, type ParsedInstant } from '../../db/time.ts';

const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ['t', true], ['T', true], ['TRUE', true], ['true', true], ['True', true],
  ['f', false], ['F', false], ['FALSE', false], ['false', false], ['False', false],
]);

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const INTEGER = /^-?[0-9]+$/;
const DIGITS = /^[0-9]+$/;

export function parseBooleanOperand(text: string): boolean | undefined {
  return BOOLEANS.get(text);
}

/** Lower-cased, as uuids are stored. */
export function parseUuidOperand(text: string): string | undefined {
  return UUID.test(text) ? text.toLowerCase() : undefined;
}

/** Optionally negative decimal integer that is a safe JS integer (leading zeros allowed). */
export function parseIntegerOperand(text: string): number | undefined {
  if (!INTEGER.test(text)) return undefined;
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).replace(/^0+(?=.)/, '');
  if (digits.length > 16) return undefined;
  const n = Number(digits);
  if (!Number.isSafeInteger(n)) return undefined;
  return negative && n !== 0 ? -n : n;
}

/** Non-negative decimal integer without sign, at most `max`. */
export function parseCountOperand(text: string, max: number): number | undefined {
  if (!DIGITS.test(text)) return undefined;
  const digits = text.replace(/^0+(?=.)/, '');
  if (digits.length > 16) return undefined;
  const n = Number(digits);
  return n <= max ? n : undefined;
}

/**
 * RFC-3339 instant as floor(microseconds) plus whether sub-microsecond digits were cut off, so
 * that comparisons with stored integer micros equal comparisons of exact instants.
 *
 * Stored timestamps are safe integers (CONTRACT storage convention), so an instant beyond that range
 * compares like any point beyond every stored value: it is clamped to half a microsecond outside the
 * safe range (floor ±2^53-ish, `fractional` true), which keeps every predicate exact.
 */
export function parseInstantOperand(text: string): ParsedInstant | undefined {
  const parsed = parseRfc3339(text);
  if (!parsed) return undefined;
  if (Number.isSafeInteger(parsed.micros)) return parsed;
  return parsed.micros > 0
    ? { micros: Number.MAX_SAFE_INTEGER, fractional: true } // MAX_SAFE + 0.5
    : { micros: Number.MIN_SAFE_INTEGER - 1, fractional: true }; // -2^53 + 0.5 < MIN_SAFE
}
