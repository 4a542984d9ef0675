import { createHmac, timingSafeEqual } from 'node:crypto';
import { MEDIA_TYPES, type MediaType } from '../media-types/media-type';

/** A position in one user's write history for one media type (contract §12). */
export interface Cursor {
  userId: number;
  /** The user's creation time in seconds: a cursor never works for a later user with the same id. */
  userCreatedAt: number;
  mediaType: MediaType;
  /** Every write with a list revision up to this one is behind the cursor. */
  position: number;
  /** Unix seconds from which the cursor's retention runs. */
  issuedAt: number;
}

const VERSION = '1';
const MAX_LENGTH = 200;
const SIGNATURE_BYTES = 16;

function sign(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, SIGNATURE_BYTES);
}

/** `base64url(payload).base64url(HMAC)`: opaque to clients, tamper-evident for the service. */
export function encodeCursor(key: Buffer, cursor: Cursor): string {
  const payload = [
    VERSION,
    cursor.userId,
    cursor.userCreatedAt,
    cursor.mediaType,
    cursor.position,
    cursor.issuedAt,
  ].join('.');
  return `${Buffer.from(payload).toString('base64url')}.${sign(key, payload).toString('base64url')}`;
}

/** The cursor, or null when `text` is not a cursor signed with `key`. */
export function decodeCursor(key: Buffer, text: string): Cursor | null {
  if (text.length > MAX_LENGTH) return null;
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(text);
  if (!match) return null;
  const payload = Buffer.from(match[1], 'base64url').toString();
  const signature = Buffer.from(match[2], 'base64url');
  const expected = sign(key, payload);
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
  const fields = /^1\.(\d{1,15})\.(\d{1,15})\.([a-z]{1,10})\.(\d{1,15})\.(\d{1,15})$/.exec(payload);
  if (!fields || !(MEDIA_TYPES as readonly string[]).includes(fields[3])) return null;
  return {
    userId: Number(fields[1]),
    userCreatedAt: Number(fields[2]),
    mediaType: fields[3] as MediaType,
    position: Number(fields[4]),
    issuedAt: Number(fields[5]),
  };
}
