import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ProblemException, PROBLEMS } from '../common/problem';
import { contentCodingsOf } from '../http-server/content-encoding';

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
 * gzip bomb is inflated one small chunk at a time and abandoned at the cap.
 */
export async function* importBodyText(
  body: Readable,
  encoding: 'gzip' | 'identity',
): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
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
    for await (const chunk of capped(body)) yield decoder.decode(chunk, { stream: true });
  } else {
    const gunzip = createGunzip();
    const compressed = Readable.from(capped(body));
    compressed.on('error', (error) => gunzip.destroy(error));
    compressed.pipe(gunzip);
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) {
        inflated += chunk.length;
        if (inflated > MAX_IMPORT_BYTES) throw tooLarge();
        yield decoder.decode(chunk, { stream: true });
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
  const rest = decoder.decode();
  if (rest) yield rest;
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
