/**
 * RFC 5545 recurrence rules (the `rrule` package). A rule is stored normalised as a DTSTART line plus
 * an RRULE line; a rule given without DTSTART starts at the second it was saved.
 */
import * as rrulePkg from 'rrule';
import type { RRule as RRuleType } from 'rrule';
import { badRequest } from '../../http/errors.ts';
import type { Micros } from '../../db/time.ts';

const { rrulestr, RRule } = ((rrulePkg as unknown as { default?: typeof rrulePkg }).default ?? rrulePkg) as typeof rrulePkg;

/** More often than hourly would flood collectors with jobs. */
const TOO_FREQUENT = new Set([RRule.SECONDLY, RRule.MINUTELY]);

const invalid = (why: string) => badRequest(`invalid rrule specified: ${why}`);

function dtstartLine(ms: number): string {
  return `DTSTART:${new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`;
}

export function parseRule(text: string): RRuleType {
  const rule = rrulestr(text, { forceset: false });
  if (!(rule instanceof RRule)) throw new Error('not a single rule');
  return rule;
}

/** Validates and normalises a rule given by a user; throws 400 with the reason. */
export function normaliseRule(input: string, now: Micros): string {
  const text = input.trim().replace(/\r\n/g, '\n');
  if (!text) throw invalid('empty');
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.some((l) => /^(RDATE|EXDATE|EXRULE)[:;]/i.test(l))) throw invalid('only DTSTART and RRULE are supported');
  const withStart = lines.some((l) => /^DTSTART[:;]/i.test(l)) ? lines.join('\n') : `${dtstartLine(now / 1000)}\n${lines.join('\n')}`;
  let rule: RRuleType;
  try {
    rule = parseRule(withStart);
  } catch (err) {
    throw invalid(err instanceof TypeError ? 'could not parse the rule' : (err as Error).message);
  }
  if (!/(^|[\n:;])FREQ=/i.test(withStart)) throw invalid('FREQ is required');
  if (TOO_FREQUENT.has(rule.options.freq)) throw invalid('the frequency must be HOURLY or less frequent');
  if (Number.isNaN(rule.options.dtstart.getTime())) throw invalid('bad DTSTART');
  return rule.toString();
}

/** The first occurrence at or after `from` (inclusive) or strictly after it; null when there is none. */
export function nextOccurrence(text: string, from: Micros, inclusive: boolean): Micros | null {
  const next = parseRule(text).after(new Date(Math.floor(from / 1000)), inclusive);
  if (!next) return null;
  const micros = next.getTime() * 1000;
  // `after` works in milliseconds: a non-inclusive search must not return `from` itself.
  return !inclusive && micros <= from ? nextOccurrence(text, from + 1000, false) : micros;
}

/** Up to `max` occurrences in [from, to]. */
export function occurrencesBetween(text: string, from: Micros, to: Micros, max: number): Micros[] {
  const out: Micros[] = [];
  parseRule(text).between(new Date(Math.ceil(from / 1000)), new Date(Math.floor(to / 1000)), true, (_d, i) => i < max)
    .forEach((d) => out.push(d.getTime() * 1000));
  return out.slice(0, max);
}
