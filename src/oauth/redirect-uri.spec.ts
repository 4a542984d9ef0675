import { isRegisteredRedirectUri, redirectUriProblem } from './redirect-uri';

describe('redirectUriProblem', () => {
  // null: the URI is accepted; else what the problem must say.
  it.each<[string, RegExp | null]>([
    ['https://app.example/oauth/callback', null],
    ['https://app.example:8443/cb?tenant=1', null],
    ['http://localhost:8080/callback', null],
    ['http://127.0.0.1:53122/cb', null],
    ['http://[::1]/cb', null],
    ['com.example.listsync:/oauth2redirect', null],
    ['/relative/callback', /absolute/],
    ['app.example/cb', /absolute/],
    ['https://app.example/cb#frag', /fragment/],
    ['https://user:pw@app.example/cb', /credentials/],
    ['http://app.example/cb', /https/],
    ['javascript:alert(1)', /scheme "javascript"/],
    ['data:text/html,hi', /scheme "data"/],
    ['file:///etc/passwd', /scheme "file"/],
    ['https://app.example/c b', /whitespace/],
    [`https://app.example/${'x'.repeat(2048)}`, /longer/],
  ])('%s: problem %p', (uri, problem) => {
    expect(redirectUriProblem(uri)).toEqual(
      problem === null ? null : expect.stringMatching(problem),
    );
  });
});

describe('isRegisteredRedirectUri', () => {
  const registered = [
    'https://app.example/cb',
    'http://127.0.0.1:8765/callback',
    'http://[::1]/cb?x=1',
    'http://localhost:8080/cb',
  ];

  // Any port on a loopback IP literal matches (RFC 8252 §7.3); everything else stays exact.
  it.each<[string, boolean]>([
    ['https://app.example/cb', true],
    ['http://127.0.0.1:8765/callback', true],
    ['http://127.0.0.1:50123/callback', true],
    ['http://127.0.0.1/callback', true],
    ['http://[::1]:9/cb?x=1', true],
    ['http://[::1]/cb?x=1', true],
    ['http://localhost:8080/cb', true],
    ['https://app.example:444/cb', false],
    ['https://app.example/cb/', false],
    ['http://127.0.0.1:50123/callback/', false],
    ['http://127.0.0.1:50123/other', false],
    ['http://127.0.0.1:70000/callback', false],
    ['http://127.0.0.1:50123/callback#x', false],
    ['http://[::1]:9/cb?x=2', false],
    ['http://[::1]:9/cb', false],
    ['https://127.0.0.1:8765/callback', false],
    ['http://127.0.0.2:8765/callback', false],
    ['http://localhost:8081/cb', false],
    ['http://127.0.0.1:8765@evil.example/callback', false],
  ])('%s is registered: %p', (uri, registeredUri) => {
    expect(isRegisteredRedirectUri(registered, uri)).toBe(registeredUri);
  });
});
