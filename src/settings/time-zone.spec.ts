import { isTimeZoneName, startOfDayMs } from './time-zone';

describe('isTimeZoneName', () => {
  it.each([
    'UTC',
    'Europe/Berlin',
    'Asia/Kolkata',
    'Asia/Calcutta',
    'US/Eastern',
    'Africa/Dar_es_Salaam',
    'America/Port-au-Prince',
    'America/Argentina/ComodRivadavia',
    'Etc/GMT+5',
    'Etc/UTC',
    'GMT',
    'America/Indiana/Indianapolis',
  ])('accepts %p', (name) => expect(isTimeZoneName(name)).toBe(true));

  it.each([
    '',
    'utc',
    'Utc',
    'Gmt',
    'europe/berlin',
    'EUROPE/BERLIN',
    'Europe/berlin',
    'Europe/ROME',
    'America/NEW_YORK',
    'America/LOS_Angeles',
    'Africa/Dar_Es_Salaam',
    'America/Port-Au-Prince',
    'Europe/Isle_Of_Man',
    'Us/Eastern',
    'ETC/UTC',
    'ETC/GMT+5',
    'Mars/Olympus',
    '+01:00',
  ])('refuses %p', (name) => expect(isTimeZoneName(name)).toBe(false));
});

describe('startOfDayMs', () => {
  const iso = (ms: number) => new Date(ms).toISOString();
  it('is local midnight, across a DST change', () => {
    expect(iso(startOfDayMs('2026-03-29', 'Europe/Berlin'))).toBe('2026-03-28T23:00:00.000Z');
    expect(iso(startOfDayMs('2026-03-29', 'Europe/Berlin', 1))).toBe('2026-03-29T22:00:00.000Z');
    expect(iso(startOfDayMs('2026-11-28', 'Pacific/Auckland'))).toBe('2026-11-27T11:00:00.000Z');
    expect(iso(startOfDayMs('2026-11-28', 'UTC'))).toBe('2026-11-28T00:00:00.000Z');
  });
  it('keeps years below 100 as they are', () => {
    expect(iso(startOfDayMs('0050-06-01', 'UTC'))).toBe('0050-06-01T00:00:00.000Z');
  });
});
