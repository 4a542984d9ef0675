import { applicationIdentity, buildBlocklist, userAgentRejection } from './user-agent-policy';

describe('userAgentRejection', () => {
  const blocklist = buildBlocklist(['AcmeBot']);

  it.each([
    'ListSync/2.1.0 (admin@listsync.example)',
    'My-App/1 (https://example.org/contact)',
    'Tracker/2024.1-beta (ops team (on call))',
  ])('accepts %s', (userAgent) => {
    expect(userAgentRejection(userAgent, blocklist)).toBeNull();
  });

  it.each([
    [undefined, /missing/],
    ['', /missing/],
    ['   ', /missing/],
    ['ListSync', /not of the form/],
    ['ListSync/2.1.0', /not of the form/],
    ['ListSync/2.1.0 ()', /not of the form/],
    ['ListSync/2.1.0 (  )', /not of the form/],
    ['ListSync 2.1.0 (a@b)', /not of the form/],
    ['ListSync/2.1.0 (a@b) extra', /not of the form/],
  ])('rejects %p as malformed', (userAgent, reason) => {
    expect(userAgentRejection(userAgent, blocklist)).toMatch(reason);
  });

  it.each([
    'curl/8.4.0 (x)',
    'CURL/8.4.0 (x)',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64)',
    'python-requests/2.31.0 (me@example.com)',
    'PostmanRuntime/7.36.0 (x)',
    'Go-http-client/1.1 (x)',
    'okhttp/4.12.0 (x)',
    'acmebot/1.0 (ops@acme.example)',
  ])('rejects the generic tool %s, case-insensitively, UA_BLOCKLIST included', (userAgent) => {
    expect(userAgentRejection(userAgent, blocklist)).toMatch(/generic/);
  });

  it('does not block names only configured elsewhere', () => {
    expect(userAgentRejection('AcmeBot/1.0 (ops@acme.example)', buildBlocklist([]))).toBeNull();
  });
});

describe('applicationIdentity', () => {
  it('is the Api-User-Agent when the request has one, even an empty one', () => {
    expect(
      applicationIdentity({ 'user-agent': 'Mozilla/5.0 (X11)', 'api-user-agent': 'A/1 (b)' }),
    ).toEqual({ header: 'Api-User-Agent', value: 'A/1 (b)' });
    expect(applicationIdentity({ 'user-agent': 'A/1 (b)', 'api-user-agent': '' })).toEqual({
      header: 'Api-User-Agent',
      value: '',
    });
  });

  it('is the User-Agent otherwise', () => {
    expect(applicationIdentity({ 'user-agent': 'A/1 (b)' })).toEqual({
      header: 'User-Agent',
      value: 'A/1 (b)',
    });
    expect(applicationIdentity({})).toEqual({ header: 'User-Agent', value: undefined });
  });

  it('names the header in the reason', () => {
    expect(userAgentRejection('ListSync', buildBlocklist([]), 'Api-User-Agent')).toBe(
      'the Api-User-Agent header is not of the form <AppName>/<version> (<contact>)',
    );
  });
});
