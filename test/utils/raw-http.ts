import { connect, type Socket } from 'node:net';

/** Raw HTTP/1.1 over a socket, for requests an HTTP client library would refuse to send. */

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the first response on a connection (Content-Length or chunked bodies). */
export function parseResponse(raw: string): RawResponse | null {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = '';
    let rest = body;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      const size = parseInt(rest.slice(0, lineEnd), 16);
      if (!size) break;
      decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size);
      rest = rest.slice(lineEnd + 2 + size + 2);
    }
    body = decoded;
  } else if (headers['content-length'] !== undefined) {
    // A pipelined request's answer may follow on the same connection.
    body = body.slice(0, Number(headers['content-length']));
  }
  const status = Number(statusLine.split(' ')[1]);
  // An interim answer (100 Continue) comes before the real one.
  if (status >= 100 && status < 200) return parseResponse(raw.slice(end + 4));
  return { status, headers, body };
}

export interface Exchange {
  response: RawResponse | null;
  /** The server closed the connection. */
  closed: boolean;
  /** Every byte the server sent, as latin1 text. */
  received: string;
}

/**
 * Sends `chunks` (strings, written one after the other, `pauseMs` apart) and collects what comes
 * back until the server closes the connection, or, with `untilResponse`, until one whole response
 * has arrived. Bounded: gives up after `giveUpMs`.
 */
export function exchange(
  port: number,
  chunks: string[],
  {
    pauseMs = 0,
    host = '127.0.0.1',
    untilResponse = false,
    /** Ends the sending side after the last chunk, as a client that has nothing more to say. */
    halfClose = false,
    giveUpMs = 20_000,
  } = {},
): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, host);
    let received = '';
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      socket.destroy();
      resolve({ response: parseResponse(received), closed, received });
    };
    socket.on('data', (data) => {
      received += data.toString('latin1');
      const response = parseResponse(received);
      if (
        untilResponse &&
        response &&
        response.body.length >= Number(response.headers['content-length'] ?? 0)
      ) {
        finish(false);
      }
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    chunks.forEach((chunk, index) =>
      timers.push(
        setTimeout(() => {
          if (socket.destroyed) return;
          socket.write(chunk, 'latin1');
          if (halfClose && index === chunks.length - 1) socket.end();
        }, index * pauseMs),
      ),
    );
    timers.push(setTimeout(() => finish(false), giveUpMs));
  });
}
