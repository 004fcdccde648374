/**
 * Constraint violations, recognised the same way on PostgreSQL (SQLSTATE codes) and SQLite (better-sqlite3
 * codes and messages), whether TypeORM wrapped the driver's error or not.
 */
function codeAndMessage(err: unknown): { code?: string; message: string } {
  const e = err as { code?: string; driverError?: { code?: string }; message?: string } | null;
  return { code: e?.driverError?.code ?? e?.code, message: e?.message ?? '' };
}

/** A unique-constraint violation (PostgreSQL 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const { code, message } = codeAndMessage(err);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint failed|duplicate key value/.test(message);
}

/**
 * A foreign-key violation (PostgreSQL 23503): a row was written for a parent deleted a moment before, by a
 * request that raced a delete (a scenario created while its website is being deleted).
 */
export function isForeignKeyViolation(err: unknown): boolean {
  const { code, message } = codeAndMessage(err);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || /FOREIGN KEY constraint failed|violates foreign key constraint/.test(message);
}
