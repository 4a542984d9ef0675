import { Cursor, decodeCursor, encodeCursor } from './cursor';

const KEY = Buffer.from('k'.repeat(32));
const CURSOR: Cursor = {
  userId: 12,
  userCreatedAt: 1_700_000_000,
  mediaType: 'manga',
  position: 345,
  issuedAt: 1_800_000_000,
};

describe('sync cursors', () => {
  it('round-trip', () => {
    const text = encodeCursor(KEY, CURSOR);
    expect(text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(KEY, text)).toEqual(CURSOR);
  });

  it('refuse another key', () => {
    expect(decodeCursor(Buffer.from('x'.repeat(32)), encodeCursor(KEY, CURSOR))).toBeNull();
  });

  it('refuse a changed payload or signature', () => {
    const [payload, signature] = encodeCursor(KEY, CURSOR).split('.');
    const forged = Buffer.from(
      Buffer.from(payload, 'base64url').toString().replace('.345.', '.1.'),
    ).toString('base64url');
    expect(decodeCursor(KEY, `${forged}.${signature}`)).toBeNull();
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(decodeCursor(KEY, `${payload}.${flipped}`)).toBeNull();
    expect(decodeCursor(KEY, `${payload}.${signature.slice(0, -2)}`)).toBeNull();
  });

  it.each(['', 'garbage', '.', 'a.b.c', 'x'.repeat(500), '%%%.%%%'])('refuse %p', (text) => {
    expect(decodeCursor(KEY, text)).toBeNull();
  });
});
