/**
 * Raw rows differ by driver: mysql2 returns DATETIME as a Date (UTC, `timezone: 'Z'`), SQLite as
 * the text TypeORM wrote ('YYYY-MM-DD HH:MM:SS.SSS', UTC); booleans come back as 0/1.
 */
export function rawUtcDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  const iso = value.includes('T') ? value : value.replace(' ', 'T');
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
}

/**
 * `YYYY-MM-DDThh:mm:ssZ` from a raw DATETIME. SQLite's text is already UTC and only needs
 * reshaping, which is much cheaper than a Date round trip on lists of thousands of rows.
 */
export function rawIsoSeconds(value: Date | string): string {
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?Z?$/.test(value)) {
    return `${value.slice(0, 10)}T${value.slice(11, 19)}Z`;
  }
  return rawUtcDate(value).toISOString().slice(0, 19) + 'Z';
}

export function rawBoolean(value: number | boolean | string): boolean {
  return value === true || value === 1 || value === '1';
}

/** SUM() and COUNT() come back as strings on MySQL (DECIMAL) and as numbers on SQLite. */
export function rawInteger(value: number | string | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}

/** A DATETIME parameter of raw SQL, as TypeORM writes one on both databases (UTC). */
export function sqlDateTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}
