import { parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';

/** One CLI command: its options (node:util parseArgs), help text and action. */
export interface Command {
  /** Words after `scent`, e.g. ['users', 'create']. */
  path: string[];
  summary: string;
  usage: string;
  options: Record<string, OptionSpec>;
  /** Names of positional arguments, for help. */
  positionals?: string;
  run(args: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] }): Promise<number>;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  description?: string;
}

export class UsageError extends Error {}

export function parse(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(
          Object.entries(command.options).map(([name, { type, multiple }]) => [name, { type, multiple: multiple ?? false }]),
        ),
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function helpText(command: Command): string {
  const lines = [`Usage: scent ${command.path.join(' ')} ${command.usage}`.trimEnd(), '', command.summary, ''];
  const entries = Object.entries(command.options);
  if (entries.length) {
    lines.push('Options:');
    for (const [name, opt] of entries) {
      const flag = `--${name}${opt.type === 'string' ? ' VALUE' : ''}`;
      lines.push(`  ${flag.padEnd(28)} ${opt.description ?? ''}`);
    }
  }
  lines.push(`  ${'--help, -h'.padEnd(28)} show this help`);
  return lines.join('\n');
}

/** Flag values keyed as config.ts FIELDS expects ('--database' → value). */
export function configFlags(values: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'string') out[`--${name}`] = value;
    if (value === true) out[`--${name}`] = 'true';
  }
  return out;
}

export function isUserError(err: unknown): boolean {
  return err instanceof UsageError || err instanceof ConfigError;
}
