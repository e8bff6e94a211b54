import { isAbsolute, resolve } from 'node:path';
import type { Config } from '../config.ts';
import { FIELDS } from '../config.ts';

const DEFAULT_DATABASE = FIELDS.find((f) => f.key === 'databaseUrl')!.default!;

/**
 * The `scent tokens issue` command that reaches the server's own database from another shell: the
 * default database needs no flag (same directory), any other is named (SQLite paths made absolute,
 * a PostgreSQL password shown as ***). An in-memory database cannot be reached at all: null.
 */
export function tokensIssueHint(databaseUrl: string, description: string): string | null {
  if (databaseUrl === 'sqlite::memory:' || databaseUrl === 'sqlite:') return null;
  const base = 'npx scent tokens issue --user admin';
  if (databaseUrl === DEFAULT_DATABASE) return base;
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length);
    return `${base} --database ${quote(`sqlite:${isAbsolute(path) ? path : resolve(path)}`)}`;
  }
  return `${base} --database ${quote(description)}`;
}

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** What `scent serve` prints on stdout once it listens: where, and on a first start the admin's secrets. */
export function startBanner(
  config: Config,
  db: { description: string },
  address: string,
  bootstrap: { password: string; token: string } | null,
): string {
  const lines = [
    `Scent is serving the BloodHound v2 API at ${address} (${db.description}, ${config.edition} edition)`,
    `Console: ${address}/ui/   API docs: ${address}/api/v2/docs   OpenAPI: ${address}/api/v2/spec`,
  ];
  if (bootstrap) {
    const hint = tokensIssueHint(config.databaseUrl, db.description);
    lines.push(
      '',
      'First start: created the user "admin" (Administrator).',
      `  one-time password: ${bootstrap.password}`,
      '    (it works once: its login may only set a new password, as BloodHound; see docs/clients.md)',
      `  bearer token (${formatTtl(config.sessionTtlSeconds)}): ${bootstrap.token}`,
      '',
      '  Try it:',
      `    curl -H "Authorization: Bearer ${bootstrap.token}" ${address}/api/v2/self`,
      hint
        ? `  More tokens: ${hint}${hint.includes('***') ? ' (with the password in place of ***)' : ''}`
        : '  More tokens: POST /api/v2/login with the new password (an in-memory database is private to this process).',
      '  More users: npx scent users create --help',
      '  This password is shown only once.',
    );
  }
  return `${lines.join('\n')}\n\n`;
}

function formatTtl(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
