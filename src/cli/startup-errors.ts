/**
 * One clear line for the failures a user can fix (a port in use, a database that refuses), instead of a
 * stack trace. Anything not recognised is shown by its message; the stack only with SCENT_DEBUG=1.
 */
interface SystemError extends Error {
  code?: string;
  address?: string;
  port?: number;
  errors?: unknown[];
}

const DATABASE_HINT = 'check --database / SCENT_DATABASE_URL';

export function describeError(err: unknown): string {
  const e = unwrap(err);
  const where = e.address !== undefined ? `${e.address}${e.port !== undefined ? `:${e.port}` : ''}` : '';
  switch (e.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the port is already in use (another server?); choose another with --port`;
    case 'EACCES':
      if (e.port !== undefined) return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another with --port`;
      break;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: this machine has no such address; check --host`;
    case 'ECONNREFUSED':
      return `cannot reach the database at ${where}: connection refused (is PostgreSQL running?); ${DATABASE_HINT}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot reach the database: host ${(e as { hostname?: string }).hostname ?? ''} not found; ${DATABASE_HINT}`;
    case 'ETIMEDOUT':
      return `cannot reach the database at ${where}: connection timed out; ${DATABASE_HINT}`;
    case '28P01':
    case '28000':
      return `the database refused the login: ${e.message}; ${DATABASE_HINT}`;
    case '3D000':
      return `${e.message} (create it with createdb, or ${DATABASE_HINT})`;
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_NOTADB':
    case 'SQLITE_READONLY':
      return `cannot use the SQLite database: ${e.message}; ${DATABASE_HINT}`;
  }
  if (/timeout exceeded when trying to connect|Connection terminated due to connection timeout/i.test(e.message)) {
    return `cannot reach the database: connection timed out; ${DATABASE_HINT}`;
  }
  return e.message || String(err);
}

/** Node reports a refused connection to a host with several addresses as an AggregateError. */
function unwrap(err: unknown): SystemError {
  const e = (err instanceof Error ? err : new Error(String(err))) as SystemError;
  if (!e.code && Array.isArray(e.errors) && e.errors[0] instanceof Error) return e.errors[0] as SystemError;
  if (e.code === undefined && e.cause instanceof Error) return unwrap(e.cause);
  return e;
}
