import { readClientCredentials } from './client-credentials';
import { OAuthProtocolError } from './oauth-error';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function errorOf(run: () => unknown): OAuthProtocolError {
  try {
    run();
  } catch (error) {
    return error as OAuthProtocolError;
  }
  throw new Error('no error');
}

describe('readClientCredentials', () => {
  it('reads HTTP Basic, form-decoding id and secret (RFC 6749 §2.3.1)', () => {
    expect(readClientCredentials(basic('my%20app', 'p%3As+x'), {})).toEqual({
      clientId: 'my app',
      secret: 'p:s x',
      method: 'client_secret_basic',
    });
  });

  it('reads client_secret_post and public clients', () => {
    expect(readClientCredentials(undefined, { client_id: 'a', client_secret: 's' })).toEqual({
      clientId: 'a',
      secret: 's',
      method: 'client_secret_post',
    });
    expect(readClientCredentials('Bearer xyz', { client_id: 'a' })).toEqual({
      clientId: 'a',
      secret: undefined,
      method: 'none',
    });
  });

  it('answers 401 invalid_client with a Basic challenge when there are no usable credentials', () => {
    for (const run of [
      () => readClientCredentials(undefined, {}),
      () => readClientCredentials('Basic bm9jb2xvbg==', {}),
      () => readClientCredentials(basic('%E0%A4%A', 'x'), {}),
    ]) {
      const error = errorOf(run);
      expect(error).toBeInstanceOf(OAuthProtocolError);
      expect(error).toMatchObject({ status: 401, error: 'invalid_client' });
      expect(error.headers).toEqual({ 'WWW-Authenticate': 'Basic realm="oauth"' });
    }
  });

  it('refuses two authentication methods at once and repeated parameters', () => {
    expect(
      errorOf(() => readClientCredentials(basic('a', 's'), { client_secret: 's' })),
    ).toMatchObject({
      status: 400,
      error: 'invalid_request',
    });
    expect(errorOf(() => readClientCredentials(basic('a', 's'), { client_id: 'b' }))).toMatchObject(
      {
        error: 'invalid_request',
      },
    );
    expect(
      errorOf(() => readClientCredentials(undefined, { client_id: ['a', 'b'] })),
    ).toMatchObject({
      error: 'invalid_request',
    });
  });
});
