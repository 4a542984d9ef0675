import { renderConsentPage, renderErrorPage } from './consent-page';
import { OAuthClient } from './entities/oauth-client.entity';

const client = Object.assign(new OAuthClient(), {
  clientId: 'app-id',
  name: '<b>Evil & Co</b>',
  redirectUris: ['https://app.example/cb'],
});

describe('consent page', () => {
  const request = {
    client,
    redirectUri: 'https://app.example/cb',
    state: '"><script>alert(1)</script>',
    scopes: ['ratings.anime' as const, 'user.profile' as const],
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    codeChallengeMethod: 'S256' as const,
  };
  const html = renderConsentPage({
    request,
    serviceName: 'Otaku <Club>',
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
    expect(html).toContain('your <strong>Otaku &#60;Club&#62;</strong> account');
  });

  it('names the service, focuses the user name, and tells allow from deny', () => {
    const first = renderConsentPage({ request, serviceName: 'Otaku Club', csrfToken: 'tok' });
    expect(first).toContain(
      '<title>Authorize &#60;b&#62;Evil &#38; Co&#60;/b&#62; – Otaku Club</title>',
    );
    expect(first).toMatch(/<input type="text" name="username"[^>]* autofocus>/);
    expect(first.match(/autofocus/g)).toHaveLength(1);
    expect(first).not.toContain('role="alert"');
    expect(first).toContain('class="allow">Sign in and allow</button>');
    expect(first).toContain('class="deny" formnovalidate>Deny</button>');
  });

  it('after a failed attempt, focuses the error instead', () => {
    const again = renderConsentPage({
      request,
      serviceName: 'Otaku Club',
      csrfToken: 'tok',
      error: 'Wrong user name or password.',
      username: 'alice',
    });
    expect(again).toContain(
      '<p class="error" id="error" role="alert" tabindex="-1" autofocus>Wrong user name or password.</p>',
    );
    expect(again.match(/autofocus/g)).toHaveLength(1);
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
