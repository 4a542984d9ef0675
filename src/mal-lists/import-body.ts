import type { FastifyInstance } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ProblemException, PROBLEMS } from '../common/problem';
import { contentCodingsOf } from '../http-server/content-encoding';
import { MalFileError } from './mal-xml-reader';

/** The largest import a request may carry, after decompression (contract §13). */
export const MAX_IMPORT_BYTES = 8 * 1024 * 1024;

/** How the body is encoded; anything but gzip and identity is refused before it is read. */
export function importEncodingOf(header: string | undefined): 'gzip' | 'identity' {
  const codings = contentCodingsOf(header);
  if (codings.length === 0) return 'identity';
  if (codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip')) return 'gzip';
  throw ProblemException.of(
    415,
    PROBLEMS.unsupportedMediaType,
    `Content-Encoding "${codings.join(', ')}" is not supported: send the file as is or with Content-Encoding: gzip`,
    { 'accept-encoding': 'gzip, identity' },
  );
}

function tooLarge(): ProblemException {
  return ProblemException.of(
    413,
    PROBLEMS.payloadTooLarge,
    `The file is over ${MAX_IMPORT_BYTES} bytes (8 MiB) after decompression`,
  );
}

/**
 * The body as UTF-8 text chunks, read as the consumer asks for them, inflated when gzipped, and
 * cut off (413) as soon as more than MAX_IMPORT_BYTES arrive on either side of the inflation: a
 * gzip bomb is inflated one small chunk at a time and abandoned at the cap. Bytes that are not
 * UTF-8 end it with a MalFileError naming their line.
 */
export function importBodyText(
  body: Readable,
  encoding: 'gzip' | 'identity',
): AsyncGenerator<string> {
  return utf8Text(importBodyBytes(body, encoding));
}

async function* importBodyBytes(
  body: Readable,
  encoding: 'gzip' | 'identity',
): AsyncGenerator<Buffer> {
  let received = 0;
  const capped = async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      received += chunk.length;
      if (received > MAX_IMPORT_BYTES) throw tooLarge();
      yield chunk;
    }
  };
  let inflated = 0;
  if (encoding === 'identity') {
    yield* capped(body);
    return;
  }
  const gunzip = createGunzip();
  const compressed = Readable.from(capped(body));
  compressed.on('error', (error) => gunzip.destroy(error));
  compressed.pipe(gunzip);
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      inflated += chunk.length;
      if (inflated > MAX_IMPORT_BYTES) throw tooLarge();
      yield chunk;
    }
  } catch (error) {
    if (error instanceof ProblemException) throw error;
    throw ProblemException.of(
      400,
      PROBLEMS.badRequest,
      `The gzip body cannot be inflated: ${(error as Error).message}`,
    );
  } finally {
    compressed.destroy();
    gunzip.destroy();
  }
}

const NEWLINE = 0x0a;

/**
 * The text of UTF-8 bytes; a malformed or truncated sequence is a MalFileError with its line
 * (contract §13), never a silent U+FFFD. Each chunk is decoded up to its last whole character.
 * UTF-8 never uses the newline byte inside a character, so lines are counted on the bytes, and
 * the lines before a bad one are handed on first: an earlier error in the XML is reported first.
 */
async function* utf8Text(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  // Only ever given valid UTF-8; it drops a leading byte order mark.
  const decoder = new TextDecoder('utf-8');
  let line = 1;
  let carried = Buffer.alloc(0);
  for await (const chunk of chunks) {
    const bytes = carried.length === 0 ? chunk : Buffer.concat([carried, chunk]);
    const end = bytes.length - unfinishedTailLength(bytes);
    carried = Buffer.from(bytes.subarray(end));
    const whole = bytes.subarray(0, end);
    if (isUtf8(whole)) {
      line += newlinesIn(whole);
      yield decoder.decode(whole, { stream: true });
      continue;
    }
    let start = 0;
    for (;;) {
      const newline = whole.indexOf(NEWLINE, start);
      if (newline === -1 || !isUtf8(whole.subarray(start, newline))) break;
      start = newline + 1;
      line += 1;
    }
    yield decoder.decode(whole.subarray(0, start), { stream: true });
    throw new MalFileError(`line ${line}: the file is not valid UTF-8`);
  }
  if (carried.length > 0) {
    throw new MalFileError(
      `line ${line}: the file is not valid UTF-8 (it ends inside a character)`,
    );
  }
}

/** How many bytes at the end of `bytes` begin a character that the next chunk completes. */
function unfinishedTailLength(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    const isContinuation = (byte & 0xc0) === 0x80;
    if (isContinuation) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

function newlinesIn(bytes: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) count++;
  return count;
}

/** Route config flag: the route reads its XML body itself, as a stream (see registerXmlBodies). */
export const STREAMED_BODY = 'mal-lists:streamed-body';

/**
 * XML bodies are handed to the import routes unread, so that the pipeline's checks run before
 * a byte of the file is read (contract §13) and the route reads it against its own cap. Other
 * routes never read an XML body: they answer 415 at step 7, and Node discards the unread body.
 */
export function registerXmlBodies(fastify: FastifyInstance): void {
  fastify.addContentTypeParser(['application/xml', 'text/xml'], (request, payload, done) => {
    const config = request.routeOptions.config as unknown as Record<string, unknown> | undefined;
    done(null, config?.[STREAMED_BODY] === true ? payload : undefined);
  });
}
