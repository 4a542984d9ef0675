import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import passport from 'passport';
import { ProblemException, PROBLEMS } from '../common/problem';
import { routeFacts } from '../common/route-facts';
import type { AuthenticatedUser } from './authenticated-user';
import { BearerStrategy } from './bearer.strategy';

export const REALM = 'ratings';

/**
 * Step 3 of contract §2. Passport's guard answers a bare 401; this one adds the RFC 6750
 * challenge: no error code without credentials, `invalid_token` for a bad bearer token.
 *
 * It runs this app's own BearerStrategy instead of `AuthGuard('bearer')`, which looks the strategy
 * up by name in passport's process-wide registry: there the last app created wins, so with two apps
 * in one process (e2e tests of several instances) the first would authenticate through the
 * second's database connection, and answer 500 to every request once the second is closed.
 */
@Injectable()
export class BearerAuthGuard implements CanActivate {
  constructor(private readonly strategy: BearerStrategy) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!routeFacts(context).authenticated) return true;
    return this.authenticate(context);
  }

  private async authenticate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    const { error, user } = await this.runStrategy(request, http.getResponse<FastifyReply>());
    request.user = this.userOrChallenge(error, user, request);
    return true;
  }

  private runStrategy(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ error: unknown; user: AuthenticatedUser | false }> {
    return new Promise((resolve) => {
      // A per-request instance, as passport makes from a named strategy: it sets the outcome
      // callbacks (success, fail, error) on it.
      const strategy = Object.create(this.strategy) as BearerStrategy;
      const middleware = passport.authenticate(
        strategy,
        { session: false },
        (error: unknown, user?: AuthenticatedUser | false | null) =>
          resolve({ error, user: user ?? false }),
      ) as (req: unknown, res: unknown, next: (error?: unknown) => void) => void;
      middleware(request, reply, (error?: unknown) => resolve({ error, user: false }));
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
