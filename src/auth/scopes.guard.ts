import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException, PROBLEMS } from '../common/problem';
import type { AuthenticatedUser } from './authenticated-user';
import { REQUIRED_SCOPE_KEY } from './auth.decorators';
import type { Scope } from './scopes';

/** Step 5 of contract §2: the token must hold the route's scope. */
@Injectable()
export class ScopesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!scope) return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    if (user?.scopes.has(scope)) return true;
    throw ProblemException.of(
      403,
      PROBLEMS.insufficientScope,
      `The access token lacks the "${scope}" scope`,
      { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
    );
  }
}
