import { OAuthClient } from './entities/oauth-client.entity';
import { parseAuthorizationRequest, redirectBack } from './authorization-request';

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://app.example/cb';

const client = Object.assign(new OAuthClient(), {
  id: 1,
  clientId: 'app',
  name: 'App',
  secretHash: null,
  redirectUris: [REDIRECT, 'http://127.0.0.1:9000/cb'],
});

const valid = {
  response_type: 'code',
  client_id: 'app',
  redirect_uri: REDIRECT,
  scope: 'ratings.anime user.profile',
  state: 'af0ifjsldkj',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
};

const parse = (params: Record<string, unknown>) =>
  parseAuthorizationRequest(params, (id) => Promise.resolve(id === 'app' ? client : null));

describe('parseAuthorizationRequest', () => {
  it('accepts a complete request', async () => {
    await expect(parse(valid)).resolves.toEqual({
      kind: 'valid',
      request: {
        client,
        redirectUri: REDIRECT,
        state: 'af0ifjsldkj',
        scopes: ['ratings.anime', 'user.profile'],
        codeChallenge: CHALLENGE,
        codeChallengeMethod: 'S256',
      },
    });
  });

  it('makes state optional and removes duplicate scopes', async () => {
    const outcome = await parse({
      ...valid,
      state: undefined,
      scope: 'user.profile  user.profile',
    });
    expect(outcome).toMatchObject({
      kind: 'valid',
      request: { state: undefined, scopes: ['user.profile'] },
    });
  });

  it.each([
    [{ client_id: undefined }, /client_id is missing/],
    [{ client_id: 'other' }, /registered application/],
    [{ client_id: ['app', 'app'] }, /client_id is repeated/],
    [{ redirect_uri: undefined }, /redirect_uri is missing/],
    [{ redirect_uri: 'https://app.example/cb/' }, /must match exactly/],
    [{ redirect_uri: 'https://evil.example/cb' }, /must match exactly/],
    [{ redirect_uri: [REDIRECT, REDIRECT] }, /redirect_uri is repeated/],
  ])('never redirects when the client or redirect URI is wrong: %p', async (change, reason) => {
    const outcome = await parse({ ...valid, ...change });
    expect(outcome.kind).toBe('page-error');
    expect((outcome as { description: string }).description).toMatch(reason);
  });

  it.each([
    [{ response_type: undefined }, 'invalid_request'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ code_challenge: undefined }, 'invalid_request'],
    [{ code_challenge_method: undefined }, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge_method: 'S512' }, 'invalid_request'],
    [{ code_challenge: 'short' }, 'invalid_request'],
    [{ scope: undefined }, 'invalid_scope'],
    [{ scope: 'ratings.anime admin' }, 'invalid_scope'],
    [{ scope: ['user.profile', 'ratings.anime'] }, 'invalid_request'],
    [{ state: 'caf\u00e9' }, 'invalid_request'],
  ])('sends other errors back to the client: %p → %s', async (change, error) => {
    const outcome = await parse({ ...valid, ...change });
    expect(outcome).toMatchObject({ kind: 'redirect-error', redirectUri: REDIRECT, error });
  });

  it.each([
    [{ response_type: 'token"' }],
    [{ code_challenge_method: 'S512"<b>' }],
    [{ code_challenge_method: 'plain' }],
    [{ scope: 'ratings.anime "admin"' }],
    [{ scope: 'ratings.anime' + ' x'.repeat(50) }],
  ])(
    'describes an error in NQSCHAR, echoing nothing of the request: %p',
    async (change: Record<string, string>) => {
      const outcome = await parse({ ...valid, ...change });
      const description = (outcome as { description: string }).description;
      // RFC 6749 §4.1.2.1: %x20-21 / %x23-5B / %x5D-7E.
      expect(description).toMatch(/^[\x20\x21\x23-\x5b\x5d-\x7e]+$/);
      expect(description).not.toMatch(/S512|admin|token"| x x/);
    },
  );

  it('echoes a valid state with the error, and no invalid one', async () => {
    await expect(parse({ ...valid, scope: 'admin' })).resolves.toMatchObject({
      state: 'af0ifjsldkj',
    });
    await expect(parse({ ...valid, state: 'x\ny' })).resolves.toMatchObject({ state: undefined });
  });
});

describe('redirectBack', () => {
  it('adds the parameters to the redirect URI, keeping its own query and leaving out undefined ones', () => {
    expect(
      redirectBack('https://app.example/cb?tenant=a%20b', { code: 'x+y', state: undefined }),
    ).toBe('https://app.example/cb?tenant=a+b&code=x%2By');
    expect(redirectBack('com.example.app:/oauth', { error: 'access_denied' })).toBe(
      'com.example.app:/oauth?error=access_denied',
    );
  });
});
