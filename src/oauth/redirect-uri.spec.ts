import { isRegisteredRedirectUri, redirectUriProblem } from './redirect-uri';

describe('redirectUriProblem', () => {
  it.each([
    'https://app.example/oauth/callback',
    'https://app.example:8443/cb?tenant=1',
    'http://localhost:8080/callback',
    'http://127.0.0.1:53122/cb',
    'http://[::1]/cb',
    'com.example.listsync:/oauth2redirect',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
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
  ])('refuses %s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toMatch(problem);
  });
});

describe('isRegisteredRedirectUri', () => {
  const registered = [
    'https://app.example/cb',
    'http://127.0.0.1:8765/callback',
    'http://[::1]/cb?x=1',
    'http://localhost:8080/cb',
  ];

  it.each([
    'https://app.example/cb',
    'http://127.0.0.1:8765/callback',
    'http://127.0.0.1:50123/callback',
    'http://127.0.0.1/callback',
    'http://[::1]:9/cb?x=1',
    'http://[::1]/cb?x=1',
    'http://localhost:8080/cb',
  ])('matches %s (any port on a loopback IP literal, RFC 8252 §7.3)', (uri) => {
    expect(isRegisteredRedirectUri(registered, uri)).toBe(true);
  });

  it.each([
    'https://app.example:444/cb',
    'https://app.example/cb/',
    'http://127.0.0.1:50123/callback/',
    'http://127.0.0.1:50123/other',
    'http://127.0.0.1:70000/callback',
    'http://127.0.0.1:50123/callback#x',
    'http://[::1]:9/cb?x=2',
    'http://[::1]:9/cb',
    'https://127.0.0.1:8765/callback',
    'http://127.0.0.2:8765/callback',
    'http://localhost:8081/cb',
    'http://127.0.0.1:8765@evil.example/callback',
  ])('refuses %s (everything else stays exact)', (uri) => {
    expect(isRegisteredRedirectUri(registered, uri)).toBe(false);
  });
});
