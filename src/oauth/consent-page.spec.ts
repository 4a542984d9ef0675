import { renderConsentPage, renderErrorPage } from './consent-page';
import { OAuthClient } from './entities/oauth-client.entity';

const client = Object.assign(new OAuthClient(), {
  clientId: 'app-id',
  name: '<b>Evil & Co</b>',
  redirectUris: ['https://app.example/cb'],
});

describe('consent page', () => {
  const html = renderConsentPage({
    request: {
      client,
      redirectUri: 'https://app.example/cb',
      state: '"><script>alert(1)</script>',
      scopes: ['ratings.anime', 'user.profile'],
      codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      codeChallengeMethod: 'S256',
    },
    csrfToken: 'tok',
    username: 'x" onfocus="y',
    checked: ['user.profile'],
  });

  it('escapes everything that comes from the client or the user', () => {
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>Evil');
    expect(html).toContain('&#60;b&#62;Evil &#38; Co&#60;/b&#62;');
    expect(html).toContain('value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"');
    expect(html).toContain('value="x&#34; onfocus=&#34;y"');
  });

  it('lists the requested scopes as checkboxes, ticked as given, and carries the request', () => {
    expect(html).toContain('<input type="checkbox" name="grant" value="ratings.anime"> ');
    expect(html).toContain('<input type="checkbox" name="grant" value="user.profile" checked> ');
    expect(html).not.toContain('ratings.manga');
    expect(html).toContain('<input type="hidden" name="csrf_token" value="tok">');
    expect(html).toContain('<input type="hidden" name="code_challenge_method" value="S256">');
    expect(html).toContain('https://app.example');
  });

  it('renders error pages escaped', () => {
    expect(renderErrorPage('Oops', '<img src=x>')).toContain('&#60;img src=x&#62;');
  });
});
