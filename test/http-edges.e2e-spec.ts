import { connect, type Socket } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../src/config/app-config';
import { listen } from '../src/http-server/listen';
import { expectProblem } from './utils/problem';
import { exchange, type Exchange } from './utils/raw-http';
import { createTestApp } from './utils/test-app';
import { sleep } from './utils/wait';

/**
 * The edges of HTTP that never reach a route: errors of Node's HTTP parser, the request timeout,
 * unsupported methods on known paths, the connection bound and the listening address. Spoken over
 * raw sockets, since an HTTP client library would refuse to send most of these requests.
 */

describe('HTTP edges', () => {
  describe('errors outside the routes', () => {
    let app: NestFastifyApplication;
    let port: number;

    beforeAll(async () => {
      app = await createTestApp({ REQUEST_TIMEOUT_SECONDS: '1' });
      await app.listen(0, '127.0.0.1');
      port = (app.getHttpServer().address() as { port: number }).port;
    });

    afterAll(async () => {
      await app.close();
    });

    it('an undecodable path is problem+json with X-Request-Id, whatever the method', async () => {
      for (const method of ['GET', 'OPTIONS', 'POST', 'PATCH', 'DELETE']) {
        const exchanged = await exchange(port, [
          `${method} /v1/my/%ZZ/3/ratings HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        ]);
        const response = exchanged.response;
        expect([method, response?.status]).toEqual([method, expect.any(Number)]);
        expect(response!.status).toBeGreaterThanOrEqual(400);
        expectProblem(exchanged, response!.status);
      }
    });

    it.each([
      [
        'a malformed request line',
        'GET /health HTTP/9.9 zz\r\nHost: x\r\n\r\n',
        400,
        /request line/,
      ],
      [
        'a method that does not exist',
        'FETCH /health HTTP/1.1\r\nHost: x\r\n\r\n',
        400,
        /request line/,
      ],
      [
        'a header block over the limit',
        `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
        /headers are larger/,
      ],
      [
        'a duplicate Content-Length',
        'PUT /v1/my/anime/1/ratings HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}',
        400,
        /Content-Length/,
      ],
      [
        'Content-Length with Transfer-Encoding',
        'PUT /v1/my/anime/1/ratings HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        400,
        undefined,
      ],
      [
        'bad chunking',
        'PUT /v1/my/anime/1/ratings HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
        400,
        /chunked/,
      ],
      [
        'a malformed header line',
        'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
        400,
        undefined,
      ],
      ['HTTP/1.1 without Host', 'GET /health HTTP/1.1\r\n\r\n', 400, /Host/],
    ])(
      '%s: problem+json with X-Request-Id, connection closed',
      async (_name, raw, status, detail) => {
        const exchanged = await exchange(port, [raw]);
        expectProblem(exchanged, status, detail);
        expect(exchanged.closed).toBe(true);
      },
    );

    it('HTTP/1.0 without Host is served', async () => {
      const exchanged = await exchange(port, ['GET /health HTTP/1.0\r\n\r\n']);
      expect(exchanged.response?.status).toBe(200);
      expect(exchanged.response!.headers['x-request-id']).toBeTruthy();
    });

    it('headers that never end: 408 problem+json after REQUEST_TIMEOUT_SECONDS, connection closed', async () => {
      const exchanged = await exchange(port, ['GET /health HTTP/1.1\r\nHost: x\r\n']);
      expectProblem(exchanged, 408, /within 1 seconds/);
      expect(exchanged.closed).toBe(true);
    });

    it('a body trickling in steadily: 408 problem+json, connection closed', async () => {
      const body = JSON.stringify({ status: 'completed', notes: 'x'.repeat(200) });
      const head =
        'PUT /v1/my/anime/1/ratings HTTP/1.1\r\nHost: x\r\nUser-Agent: ListSync/2.1.0 (a@b.example)\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      // 10 bytes every 100 ms: the whole body would take 2 s, twice the timeout.
      const pieces = [head, ...(body.match(/.{1,10}/g) as string[])];
      const exchanged = await exchange(port, pieces, { pauseMs: 100 });
      expectProblem(exchanged, 408, /whole request/);
      expect(exchanged.closed).toBe(true);
    });

    it('bytes after a GET are the next request: each gets its own answer, the first one intact', async () => {
      // Found by the fuzzer: a GET with two stray bytes after its headers, then end of sending.
      const exchanged = await exchange(port, ['GET /v1/3Xf4D HTTP/1.1\r\nHost: x\r\n\r\nMO'], {
        halfClose: true,
      });
      expectProblem(exchanged, 404);
      const answers = exchanged.received.match(/HTTP\/1\.1 \d{3}/g);
      expect(answers).toEqual(['HTTP/1.1 404', 'HTTP/1.1 400']);
    });

    it('a request that arrives in time is served, and its connection kept open', async () => {
      const request = 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';
      const exchanged = await exchange(port, [request], { untilResponse: true });
      expect(exchanged.response?.status).toBe(200);
      expect(exchanged.closed).toBe(false);
    });

    describe('a known /v1 path with a method it does not have', () => {
      it.each([
        ['POST', '/v1/my/anime/3/ratings', 'GET, HEAD, PUT, DELETE, OPTIONS'],
        ['PATCH', '/v1/my/manga/3/ratings?use_external_id=true', 'GET, HEAD, PUT, DELETE, OPTIONS'],
        ['PUT', '/v1/my/anime/ratings', 'GET, HEAD, OPTIONS'],
        ['DELETE', '/v1/my/profile', 'GET, HEAD, OPTIONS'],
      ])('%s %s: 405 problem+json with Allow, before the pipeline', async (method, path, allow) => {
        // No token, no User-Agent: the pipeline would answer 403 or 401.
        const exchanged = await exchange(port, [
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
        ]);
        const response = expectProblem(exchanged, 405, new RegExp(`^${method} is not allowed`));
        expect(response.headers.allow).toBe(allow);
      });

      it.each([
        ['/v1/my/anime/3/ratings', 'GET, HEAD, PUT, DELETE, OPTIONS'],
        ['/v1/my/manga/ratings', 'GET, HEAD, OPTIONS'],
        ['/v1/my/profile', 'GET, HEAD, OPTIONS'],
      ])('OPTIONS %s: 204 with Allow', async (path, allow) => {
        const exchanged = await exchange(port, [
          `OPTIONS ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        ]);
        expect(exchanged.response?.status).toBe(204);
        expect(exchanged.response!.headers.allow).toBe(allow);
        expect(exchanged.response!.headers['x-request-id']).toBeTruthy();
        expect(exchanged.response!.body).toBe('');
      });

      it('an unknown path stays 404, whatever the method', async () => {
        for (const method of ['GET', 'POST', 'OPTIONS']) {
          const exchanged = await exchange(port, [
            `${method} /v1/my/anime/3/nothing HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
          ]);
          expectProblem(exchanged, 404);
          expect(exchanged.response!.headers.allow).toBeUndefined();
        }
      });
    });
  });

  it('keeps at most MAX_CONNECTIONS connections open; further ones are closed at once', async () => {
    const app = await createTestApp({ MAX_CONNECTIONS: '3' });
    const sockets: Socket[] = [];
    try {
      await app.listen(0, '127.0.0.1');
      const port = (app.getHttpServer().address() as { port: number }).port;
      // Three connections, each served once and kept alive.
      for (let i = 0; i < 3; i++) {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        const answered = new Promise<string>((resolve) =>
          socket.once('data', (d) => resolve(d.toString())),
        );
        socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
        expect(await answered).toMatch(/^HTTP\/1\.1 200/);
      }
      const refused = await exchange(port, ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n']);
      expect(refused).toEqual({ response: null, closed: true, received: '' });

      // Once one closes, a new connection is served again (the server notices the close soon).
      sockets.shift()!.destroy();
      let served: Exchange | undefined;
      for (let attempt = 0; attempt < 50 && served?.response?.status !== 200; attempt++) {
        await sleep(100);
        served = await exchange(port, [
          'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        ]);
      }
      expect(served?.response?.status).toBe(200);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await app.close();
    }
  });

  describe('listening address (HOST)', () => {
    const configWith = (env: Record<string, string>) =>
      loadConfig({ DATABASE_URL: process.env.E2E_DATABASE_URL, PORT: '0', ...env });

    async function reachable(port: number, host: string): Promise<boolean> {
      const exchanged = await exchange(
        port,
        ['GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
        { host },
      );
      return exchanged.response?.status === 200;
    }

    it('unset: every interface, IPv4 and IPv6 (::1 included)', async () => {
      const app = await createTestApp();
      try {
        await listen(app, configWith({}));
        const port = (app.getHttpServer().address() as { port: number }).port;
        expect(await reachable(port, '127.0.0.1')).toBe(true);
        expect(await reachable(port, '::1')).toBe(true);
      } finally {
        await app.close();
      }
    });

    it('HOST=127.0.0.1: that address only', async () => {
      const app = await createTestApp();
      try {
        await listen(app, configWith({ HOST: '127.0.0.1' }));
        const port = (app.getHttpServer().address() as { port: number }).port;
        expect(await reachable(port, '127.0.0.1')).toBe(true);
        expect(await reachable(port, '::1')).toBe(false);
      } finally {
        await app.close();
      }
    });

    it('HOST=::1: IPv6 loopback only', async () => {
      const app = await createTestApp();
      try {
        await listen(app, configWith({ HOST: '::1' }));
        const port = (app.getHttpServer().address() as { port: number }).port;
        expect(await reachable(port, '::1')).toBe(true);
        expect(await reachable(port, '127.0.0.1')).toBe(false);
      } finally {
        await app.close();
      }
    });
  });
});
