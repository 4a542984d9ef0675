import { Readable } from 'node:stream';
import Busboy from '@fastify/busboy';
import { ProblemException, PROBLEMS } from '../common/problem';
import { unreadable, type ScrobbleParser } from './parsers';
import { contentTypeEssence } from '../common/content-type';

/** The receiver's body limit (contract §21): larger bodies are 413. */
export const SCROBBLE_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export type BodyFormat = 'json' | 'form' | 'multipart';

/**
 * The body's format from its Content-Type, checked before the body is read (contract §21): JSON
 * and text/plain JSON for every kind, a form for jellyfin, multipart for plex and emby; else 415.
 */
export function bodyFormatOf(contentType: string | undefined, parser: ScrobbleParser): BodyFormat {
  const type = contentTypeEssence(contentType);
  if (type === 'application/json' || type === 'text/plain') return 'json';
  if (type === 'application/x-www-form-urlencoded' && parser.form) return 'form';
  if (type === 'multipart/form-data' && parser.multipartPart !== null) return 'multipart';
  const accepted = [
    'application/json',
    'text/plain',
    ...(parser.form ? ['application/x-www-form-urlencoded'] : []),
    ...(parser.multipartPart !== null ? ['multipart/form-data'] : []),
  ];
  throw ProblemException.of(
    415,
    PROBLEMS.unsupportedMediaType,
    `A ${parser.kind} scrobbler takes ${accepted.join(', ')}`,
  );
}

/** The body as the JSON object the parser reads; 400 when it is empty or not one. */
export async function payloadOf(
  format: BodyFormat,
  body: unknown,
  contentType: string,
  parser: ScrobbleParser,
): Promise<Record<string, unknown>> {
  if (format === 'form') {
    if (!isObject(body) || Object.keys(body).length === 0) throw unreadable('The body is empty');
    return body;
  }
  if (format === 'multipart') {
    const bytes = Buffer.isBuffer(body) ? body : undefined;
    const part = await multipartPart(bytes, contentType, parser.multipartPart!);
    return jsonObjectOf(part, `The multipart part "${parser.multipartPart}"`);
  }
  // application/json arrives parsed, as any JSON value; text/plain as the text sent.
  if (isObject(body)) return body;
  if (body === undefined) return jsonObjectOf(undefined, 'The body');
  if (Buffer.isBuffer(body)) return jsonObjectOf(body.toString(), 'The body');
  if (typeof body === 'string' && contentTypeEssence(contentType) !== 'application/json') {
    return jsonObjectOf(body, 'The body');
  }
  throw unreadable('The body must be a JSON object');
}

function jsonObjectOf(text: string | undefined, what: string): Record<string, unknown> {
  if (text === undefined || text.trim() === '') throw unreadable(`${what} is empty`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw unreadable(`${what} is not valid JSON`);
  }
  if (!isObject(value)) throw unreadable(`${what} must be a JSON object`);
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text of one part of a multipart body (a field or a file); other parts are discarded. */
function multipartPart(
  body: Buffer | undefined,
  contentType: string,
  name: string,
): Promise<string | undefined> {
  if (body === undefined || body.length === 0)
    return Promise.reject(unreadable('The body is empty'));
  return new Promise((resolve, reject) => {
    let found: string | undefined;
    let parser;
    try {
      parser = Busboy({
        headers: { 'content-type': contentType },
        limits: { fieldSize: SCROBBLE_BODY_LIMIT_BYTES, parts: 100 },
      });
    } catch {
      reject(unreadable('The multipart body has no boundary'));
      return;
    }
    parser.on('field', (field: string, value: string) => {
      if (field === name && found === undefined) found = value;
    });
    parser.on('file', (field: string, stream: Readable) => {
      if (field !== name || found !== undefined) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        found ??= Buffer.concat(chunks).toString('utf8');
      });
    });
    parser.on('error', () => reject(unreadable('The multipart body cannot be read')));
    parser.on('finish', () => {
      if (found === undefined) reject(unreadable(`The multipart body has no part "${name}"`));
      else resolve(found);
    });
    Readable.from([Buffer.isBuffer(body) ? body : Buffer.from(body)]).pipe(parser);
  });
}
