import { Inject, Injectable, Logger } from '@nestjs/common';
import { OAuthError, ServerError } from '@node-oauth/oauth2-server';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import {
  AuthorizationRequest,
  parseAuthorizationRequest,
  redirectBack,
} from './authorization-request';
import { ClientsService } from './clients.service';
import { renderConsentPage, renderErrorPage } from './consent-page';
import { csrfMatches, CSRF_FIELD, newCsrfToken } from './csrf';
import { LoginThrottleService } from './login-throttle.service';
import { OAuthServerService } from './oauth-server.service';
import { Semaphore } from './semaphore';

/**
 * Password checks (scrypt, 32 MiB each, on libuv's 4 threads) run at most 4 at a time in this
 * process, with at most 16 more waiting; past that, sign-in is refused at once.
 */
export const PASSWORD_CHECKS = { running: 4, waiting: 16 } as const;

/** What GET or POST /oauth/authorize answers: an HTML page, or a redirect back to the client. */
export type AuthorizeOutcome =
  | {
      kind: 'page';
      status: number;
      html: string;
      csrfToken?: string;
      headers?: Record<string, string>;
    }
  | { kind: 'redirect'; location: string };

export interface AuthorizeContext {
  /** The CSRF token from the request's cookie, if any. */
  csrfCookie: string | undefined;
  clientIp: string;
  /** RFC 9207 `iss` of the redirects, so a client talking to several servers can tell them apart. */
  issuer: string;
  requestId: string;
}

type Form = Record<string, unknown>;

function field(form: Form, name: string): string | undefined {
  const value = form[name];
  return typeof value === 'string' ? value : undefined;
}

function list(form: Form, name: string): string[] {
  const value = form[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/**
 * The authorization endpoint (RFC 6749 §4.1.1): validates the request, shows the sign-in and
 * consent page, and on approval has the library issue the code. Errors follow §4.1.2.1: a bad
 * client or redirect URI is shown to the user, anything else goes back to the client.
 */
@Injectable()
export class AuthorizationService {
  private readonly logger = new Logger('OAuth');
  private readonly passwordChecks = new Semaphore(PASSWORD_CHECKS.running, PASSWORD_CHECKS.waiting);

  constructor(
    private readonly clients: ClientsService,
    private readonly users: UsersService,
    private readonly throttle: LoginThrottleService,
    private readonly server: OAuthServerService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** GET: the consent page for a valid request. */
  async show(query: Form, context: AuthorizeContext): Promise<AuthorizeOutcome> {
    const outcome = await this.parseOrRefuse(query, context);
    if (outcome.kind !== 'valid') return outcome;
    const csrfToken = context.csrfCookie ?? newCsrfToken();
    return {
      kind: 'page',
      status: 200,
      html: renderConsentPage({
        request: outcome.request,
        serviceName: this.config.serviceName,
        csrfToken,
      }),
      csrfToken,
    };
  }

  /** POST: the user's answer on the consent page. */
  async decide(form: Form, context: AuthorizeContext): Promise<AuthorizeOutcome> {
    // The hidden fields come back from the browser: validated again, never trusted.
    const outcome = await this.parseOrRefuse(form, context);
    if (outcome.kind !== 'valid') return outcome;
    const request = outcome.request;
    if (!csrfMatches(context.csrfCookie, form[CSRF_FIELD])) {
      return this.errorPage(
        'This form has expired or was not sent from this site. Go back to the application and start again.',
        403,
      );
    }
    const csrfToken = context.csrfCookie as string;
    const back = (params: Record<string, string | undefined>) =>
      this.redirect(request.redirectUri, context, { ...params, state: request.state });

    const decision = field(form, 'decision');
    if (decision === 'deny') {
      return back({ error: 'access_denied', error_description: 'The user denied the request' });
    }

    const username = field(form, 'username')?.trim() ?? '';
    const password = field(form, 'password') ?? '';
    const granted = request.scopes.filter((scope) => list(form, 'grant').includes(scope));
    const again = (status: number, error: string, headers?: Record<string, string>) =>
      ({
        kind: 'page',
        status,
        html: renderConsentPage({
          request,
          serviceName: this.config.serviceName,
          csrfToken,
          error,
          username,
          checked: granted,
        }),
        headers,
      }) as const;

    if (decision !== 'approve') return again(400, 'Choose "Sign in and allow" or "Deny".');
    if (username === '' || password === '') return again(400, 'Enter your user name and password.');
    if (granted.length === 0) {
      return again(400, 'Tick at least one permission to allow, or choose "Deny".');
    }

    const lockedMs = await this.throttle.attempt(username, context.clientIp);
    if (lockedMs > 0) {
      const minutes = Math.ceil(lockedMs / 60_000);
      return again(
        429,
        `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        { 'Retry-After': String(Math.ceil(lockedMs / 1000)) },
      );
    }
    const release = await this.passwordChecks.acquire();
    if (!release) {
      return again(429, 'Too many sign-ins at once. Try again in a moment.', {
        'Retry-After': '1',
      });
    }
    let user: User | null;
    try {
      user = await this.users.verifyCredentials(username, password);
    } finally {
      release();
    }
    if (!user) return again(400, 'Wrong user name or password.');

    try {
      const code = await this.server.issueCode(request, granted, {
        id: user.id,
        name: user.name,
      });
      return back({ code });
    } catch (error) {
      return back(this.libraryError(error, context));
    }
  }

  /** The request, or the RFC 6749 §4.1.2.1 answer: an error page, or an error redirect. */
  private async parseOrRefuse(
    params: Form,
    context: AuthorizeContext,
  ): Promise<AuthorizeOutcome | { kind: 'valid'; request: AuthorizationRequest }> {
    const outcome = await parseAuthorizationRequest(params, (id) =>
      this.clients.findByClientId(id),
    );
    if (outcome.kind === 'page-error') return this.errorPage(outcome.description);
    if (outcome.kind === 'redirect-error') {
      return this.redirect(outcome.redirectUri, context, {
        error: outcome.error,
        error_description: outcome.description,
        state: outcome.state,
      });
    }
    return outcome;
  }

  private libraryError(
    error: unknown,
    context: AuthorizeContext,
  ): { error: string; error_description: string } {
    if (error instanceof OAuthError && !(error instanceof ServerError)) {
      return { error: error.name, error_description: error.message };
    }
    const cause = (error as { inner?: unknown }).inner ?? error;
    this.logger.error(
      `Unexpected error issuing an authorization code (request ${context.requestId})`,
      cause instanceof Error ? cause.stack : String(cause),
    );
    return { error: 'server_error', error_description: 'The authorization server failed' };
  }

  private redirect(
    redirectUri: string,
    context: AuthorizeContext,
    params: Record<string, string | undefined>,
  ): AuthorizeOutcome {
    return {
      kind: 'redirect',
      location: redirectBack(redirectUri, { ...params, iss: context.issuer }),
    };
  }

  private errorPage(description: string, status = 400): AuthorizeOutcome {
    return {
      kind: 'page',
      status,
      html: renderErrorPage('This authorization request cannot be completed', description),
    };
  }
}
