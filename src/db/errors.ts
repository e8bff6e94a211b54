/** True when a database error is a UNIQUE constraint violation (both drivers). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when a database error is a FOREIGN KEY constraint violation (both drivers). */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
