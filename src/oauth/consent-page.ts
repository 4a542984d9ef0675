import { Scope, SCOPES } from '../auth/scopes';
import { MEDIA_TYPES } from '../media-types/media-type';
import type { AuthorizationRequest } from './authorization-request';

export const SCOPE_DESCRIPTIONS = {
  ...Object.fromEntries(
    MEDIA_TYPES.map((mediaType) => [
      SCOPES[mediaType],
      `Read, add, change and delete your ${mediaType} ratings`,
    ]),
  ),
  [SCOPES.profile]: 'Read your profile and list statistics',
} as Record<Scope, string>;

export interface ConsentPage {
  request: AuthorizationRequest;
  /** SERVICE_NAME: whose account the user signs in to. */
  serviceName: string;
  csrfToken: string;
  /** Shown above the form after a failed attempt. */
  error?: string;
  username?: string;
  /** Scopes ticked; all requested ones on first display. */
  checked?: readonly string[];
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}.service{margin:0;color:#555;font-size:.95rem}
fieldset{border:1px solid #ccc;border-radius:.4rem;margin:1rem 0}
label{display:block;margin:.4rem 0}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
.error{background:#fde8e8;border:1px solid #e0a0a0;padding:.5rem;border-radius:.4rem}
.buttons{display:flex;gap:.6rem}button{padding:.5rem 1rem;border-radius:.4rem;font-size:1rem;cursor:pointer}
.allow{background:#1d4ed8;border:1px solid #1d4ed8;color:#fff;font-weight:600}
.deny{background:#fff;border:1px solid #888;color:#333}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}small{color:#555}`;

function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>
${body}
</body>
</html>
`;
}

/** The sign-in and consent form of GET/POST /oauth/authorize. Everything shown is escaped. */
export function renderConsentPage(page: ConsentPage): string {
  const { request } = page;
  const checked = new Set(page.checked ?? request.scopes);
  const hidden: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: request.client.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(' '),
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: request.codeChallengeMethod,
    csrf_token: page.csrfToken,
  };
  const hiddenFields = Object.entries(hidden)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('\n');
  const scopeBoxes = request.scopes
    .map(
      (scope) =>
        `<label><input type="checkbox" name="grant" value="${scope}"${checked.has(scope) ? ' checked' : ''}> ${escapeHtml(SCOPE_DESCRIPTIONS[scope])} <small>(${scope})</small></label>`,
    )
    .join('\n');
  const name = escapeHtml(request.client.name);
  const service = escapeHtml(page.serviceName);
  const returnTo = escapeHtml(originOf(request.redirectUri));
  // No script may run on this page (CSP), so focus is placed by autofocus: on the error after a
  // failed attempt, so that a screen reader or keyboard user lands on the reason, else on the
  // first field.
  const error = page.error
    ? `<p class="error" id="error" role="alert" tabindex="-1" autofocus>${escapeHtml(page.error)}</p>`
    : '';
  const focusFirst = page.error ? '' : ' autofocus';
  return layout(
    `Authorize ${request.client.name} – ${page.serviceName}`,
    `<p class="service">${service}</p>
<h1>Authorize <strong>${name}</strong></h1>
<p><strong>${name}</strong> asks for access to your <strong>${service}</strong> account.
You will be sent back to <code>${returnTo}</code>.</p>
${error}
<form method="post" action="/oauth/authorize">
${hiddenFields}
<label>User name <input type="text" name="username" autocomplete="username" required maxlength="64" value="${escapeHtml(page.username ?? '')}"${focusFirst}></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required maxlength="1024"></label>
<fieldset><legend>${name} will be able to</legend>
${scopeBoxes}
</fieldset>
<div class="buttons">
<button type="submit" name="decision" value="approve" class="allow">Sign in and allow</button>
<button type="submit" name="decision" value="deny" class="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}

/** A request that cannot go back to the application (unknown client, unregistered redirect URI). */
export function renderErrorPage(title: string, description: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(description)}</p>
<p>Return to the application you came from and try again, or tell its developers.</p>`,
  );
}

function originOf(uri: string): string {
  const url = new URL(uri);
  return url.origin !== 'null' ? url.origin : `${url.protocol}${url.pathname}`;
}
