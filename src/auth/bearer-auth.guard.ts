import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import { routeFacts } from '../common/route-facts';
import type { AuthenticatedUser } from './authenticated-user';
import { BearerStrategy } from './bearer.strategy';

export const REALM = 'ratings';

interface Outcome {
  error: unknown;
  user: AuthenticatedUser | false;
}

/** One run of the strategy: the strategy's methods, the actions below, and where the outcome goes. */
type Attempt = BearerStrategy & { settle: (outcome: Outcome) => void };

const OPTIONS = { session: false };

/**
 * Step 3 of contract §2. Passport's guard answers a bare 401; this one adds the RFC 6750
 * challenge: no error code without credentials, `invalid_token` for a bad bearer token.
 *
 * It runs this app's own BearerStrategy instead of `AuthGuard('bearer')`, which looks the strategy
 * up by name in passport's process-wide registry: there the last app created wins, so with two apps
 * in one process (e2e tests of several instances) the first would authenticate through the
 * second's database connection, and answer 500 to every request once the second is closed.
 *
 * It runs the strategy by passport's strategy protocol itself rather than through
 * `passport.authenticate`, whose middleware builds a closure per action and per request, puts
 * session helpers (logIn, isAuthenticated, …) on the request and adds no behaviour here (no
 * session, no redirects, one strategy): the actions are defined once, on the prototype of each
 * request's attempt, and the outcomes are those `passport.authenticate`'s callback received.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  private readonly actions: BearerStrategy;

  constructor(strategy: BearerStrategy) {
    this.actions = Object.create(strategy, {
      success: {
        value(this: Attempt, user: AuthenticatedUser) {
          this.settle({ error: null, user });
        },
      },
      // The challenge and status are passport-http-bearer's; userOrChallenge writes this realm's.
      fail: {
        value(this: Attempt) {
          this.settle({ error: null, user: false });
        },
      },
      error: {
        value(this: Attempt, error: unknown) {
          this.settle({ error, user: false });
        },
      },
      // Neither is called by passport-http-bearer; passport's callback saw no user for them.
      pass: {
        value(this: Attempt) {
          this.settle({ error: undefined, user: false });
        },
      },
      redirect: {
        value(this: Attempt) {
          this.settle({ error: undefined, user: false });
        },
      },
    }) as BearerStrategy;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!routeFacts(context).authenticated) return true;
    return this.authenticate(context);
  }

  private async authenticate(context: ExecutionContext): Promise<boolean> {
    const request = context
      .switchToHttp()
      .getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    const { error, user } = await this.runStrategy(request);
    request.user = this.userOrChallenge(error, user, request);
    return true;
  }

  private runStrategy(request: FastifyRequest): Promise<Outcome> {
    return new Promise((resolve) => {
      const attempt = Object.create(this.actions) as Attempt;
      attempt.settle = resolve;
      attempt.authenticate(request, OPTIONS);
    });
  }

  private userOrChallenge(
    error: unknown,
    user: AuthenticatedUser | false,
    request: FastifyRequest,
  ): AuthenticatedUser {
    if (error instanceof Error) throw error;
    // Not an Error of this realm, e.g. a driver's: kept as the cause, for a database outage's 503.
    if (error) throw new Error('Bearer authentication failed', { cause: error });
    if (user) return user;

    const authorization = request.headers.authorization;
    const sentBearer =
      typeof authorization === 'string' && /^bearer(\s|$)/i.test(authorization.trim());
    if (!sentBearer) {
      throw ProblemException.of(
        401,
        PROBLEMS.unauthorized,
        'Send an access token as "Authorization: Bearer <token>"',
        { 'WWW-Authenticate': `Bearer realm="${REALM}"` },
      );
    }
    throw ProblemException.of(
      401,
      PROBLEMS.invalidToken,
      'The access token is malformed, unknown, expired or revoked',
      { 'WWW-Authenticate': `Bearer realm="${REALM}", error="invalid_token"` },
    );
  }
}
