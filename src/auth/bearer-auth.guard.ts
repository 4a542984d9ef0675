import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import type { AuthenticatedUser } from './authenticated-user';
import { isAuthenticatedRoute } from './auth.decorators';

export const REALM = 'ratings';

/**
 * Step 3 of decisions §2. Passport's guard answers a bare 401; this one adds the RFC 6750
 * challenge: no error code without credentials, `invalid_token` for a bad bearer token.
 */
@Injectable()
export class BearerAuthGuard extends AuthGuard('bearer') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    if (!isAuthenticatedRoute(this.reflector, context)) return true;
    return super.canActivate(context);
  }

  override handleRequest<TUser = AuthenticatedUser>(
    error: unknown,
    user: TUser | false,
    _info: unknown,
    context: ExecutionContext,
  ): TUser {
    if (error instanceof Error) throw error;
    if (error) throw new Error('Bearer authentication failed');
    if (user) return user;

    const authorization = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization;
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
