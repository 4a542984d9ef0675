import type { Response } from 'supertest';
import type { Exchange } from './raw-http';

/** A problem+json answer as expectProblem read it, whichever way it was received. */
export interface ProblemResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: { status: number; success: false; title: string; detail: string; errors?: unknown[] };
}

/**
 * A problem+json error (contract §3): the status, the media type, a sane X-Request-Id, and a body
 * with the same status, `success: false`, a title and a detail. With a RegExp, the detail matches
 * it; with field names, the problem names exactly those fields (in any order).
 *
 * Takes supertest's response, or an exchange over a raw socket (raw-http) for the answers an
 * HTTP client library cannot ask for.
 */
export function expectProblem(
  received: Response | Exchange,
  status: number,
  expected?: RegExp | string[],
): ProblemResponse {
  const response = read(received);
  expect({ status: response.status, body: response.body }).toMatchObject({
    status,
    body: { status, success: false, title: expect.any(String), detail: expect.any(String) },
  });
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(response.headers['x-request-id']).toMatch(/^[\w.:-]{1,128}$/);
  const problem = response as ProblemResponse;
  if (expected instanceof RegExp) expect(problem.body.detail).toMatch(expected);
  else if (expected) {
    const named = ((problem.body.errors ?? []) as { field: string }[]).map(({ field }) => field);
    expect([...named].sort()).toEqual([...expected].sort());
  }
  return problem;
}

function read(received: Response | Exchange): {
  status: number | undefined;
  headers: Record<string, string | undefined>;
  body: unknown;
} {
  if (!('closed' in received)) {
    const { status, headers, body } = received as Response & { headers: Record<string, string> };
    return { status, headers, body };
  }
  const raw = received.response;
  if (!raw) return { status: undefined, headers: {}, body: undefined };
  let body: unknown;
  try {
    body = JSON.parse(raw.body);
  } catch {
    body = raw.body;
  }
  return { status: raw.status, headers: raw.headers, body };
}
