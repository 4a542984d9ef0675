import { redirectUriProblem } from './redirect-uri';

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
