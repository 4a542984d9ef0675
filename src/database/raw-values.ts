/**
 * Raw rows differ by driver: mysql2 returns DATETIME as a Date (UTC, `timezone: 'Z'`), SQLite as
 * the text TypeORM wrote ('YYYY-MM-DD HH:MM:SS.SSS', UTC); booleans come back as 0/1.
 */
export function rawUtcDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  const iso = value.includes('T') ? value : value.replace(' ', 'T');
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
}

export function rawBoolean(value: number | boolean | string): boolean {
  return value === true || value === 1 || value === '1';
}

/** SUM() and COUNT() come back as strings on MySQL (DECIMAL) and as numbers on SQLite. */
export function rawInteger(value: number | string | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}
