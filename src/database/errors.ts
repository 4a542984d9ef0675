/** A unique-key violation, as better-sqlite3 and mysql2 report it. */
export function isUniqueViolation(error: unknown): boolean {
  const code =
    (error as { code?: unknown; driverError?: { code?: unknown } } | null)?.driverError?.code ??
    (error as { code?: unknown } | null)?.code;
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'ER_DUP_ENTRY'
  );
}

/** MySQL/MariaDB chose this transaction as a deadlock victim and rolled it back: it may be retried. */
export function isDeadlock(error: unknown): boolean {
  const code =
    (error as { code?: unknown; driverError?: { code?: unknown } } | null)?.driverError?.code ??
    (error as { code?: unknown } | null)?.code;
  return code === 'ER_LOCK_DEADLOCK';
}

/** A foreign key's parent row is missing (it was deleted meanwhile), as both drivers report it. */
export function isMissingParent(error: unknown): boolean {
  const code =
    (error as { code?: unknown; driverError?: { code?: unknown } } | null)?.driverError?.code ??
    (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === 'ER_NO_REFERENCED_ROW_2';
}
