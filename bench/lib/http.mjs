// A minimal keep-alive HTTP client for seeding and for the one-connection latency probes
// (node:http rather than fetch, so the timing covers little besides the request itself).
import { Buffer } from 'node:buffer';
import { Agent, request as httpRequest } from 'node:http';
import { URL } from 'node:url';

export const USER_AGENT = 'BenchClient/1.0 (bench@example.com)';

/**
 * @param {string} token
 * @param {boolean} [json] the request has a JSON body
 * @returns {Record<string, string>}
 */
export function apiHeaders(token, json = false) {
  return {
    'user-agent': USER_AGENT,
    authorization: `Bearer ${token}`,
    ...(json ? { 'content-type': 'application/json' } : {}),
  };
}

export class HttpClient {
  /**
   * @param {string} baseUrl e.g. http://127.0.0.1:3000
   * @param {number} maxSockets
   */
  constructor(baseUrl, maxSockets = 20) {
    this.base = new URL(baseUrl);
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  /**
   * @param {string} method
   * @param {string} path
   * @param {{ headers?: Record<string, string>, body?: string, timeoutMs?: number }} [options]
   * @returns {Promise<{ status: number, body: string, headers: import('node:http').IncomingHttpHeaders }>}
   */
  request(method, path, { headers = {}, body, timeoutMs = 30_000 } = {}) {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          agent: this.agent,
          host: this.base.hostname,
          port: this.base.port,
          method,
          path,
          headers:
            body === undefined
              ? headers
              : { ...headers, 'content-length': Buffer.byteLength(body) },
          timeout: timeoutMs,
        },
        (res) => {
          /** @type {Buffer[]} */
          const chunks = [];
          res.on('data', (/** @type {Buffer} */ chunk) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              headers: res.headers,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`${method} ${path} timed out after ${timeoutMs} ms`)),
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  close() {
    this.agent.destroy();
  }
}
