import { ArgumentsHost, Logger } from '@nestjs/common';
import { ProblemDetailsFilter } from './problem-details.filter';

/** A real filter on a small reply that records what it is sent. */
function hostFor(requestId: string) {
  const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
  const request = { id: requestId, method: 'GET', routeOptions: { url: '/v1/my/profile' } };
  const reply = {
    request,
    status(code: number) {
      sent.status = code;
      return reply;
    },
    headers(values: Record<string, string>) {
      Object.assign(sent.headers, values);
      return reply;
    },
    header(name: string, value: string) {
      sent.headers[name] = value;
      return reply;
    },
    send(body: string) {
      sent.body = body;
      return reply;
    },
  };
  const host = {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }),
  } as unknown as ArgumentsHost;
  return { host, sent };
}

describe('ProblemDetailsFilter', () => {
  it('turns an unexpected error into a generic 500 that leaks nothing and names the request id', () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const { host, sent } = hostFor('req-42');
    new ProblemDetailsFilter().catch(new Error('SELECT * FROM secret_table failed'), host);

    expect(sent.status).toBe(500);
    expect(sent.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const body = JSON.parse(sent.body ?? '{}');
    expect(body).toEqual({
      type: 'https://ratings.example/problems/internal',
      title: 'Internal server error',
      status: 500,
      detail: 'An unexpected error occurred; quote request id req-42 when reporting it',
      success: false,
    });
    expect(sent.body).not.toMatch(/secret_table|at .*\.ts/);
    expect(sent.headers['x-request-id']).toBe('req-42');
    expect(logged.mock.calls[0][0]).toMatch(/request req-42/);
    logged.mockRestore();
  });
});
