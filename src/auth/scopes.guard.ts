import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ProblemException, PROBLEMS } from '../common/problem';
import { routeFacts } from '../common/route-facts';
import type { AuthenticatedUser } from './authenticated-user';

/** Step 5 of contract §2: the token must hold the route's scope. */
@Injectable()
export class ScopesGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { scope } = routeFacts(context);
    if (!scope) return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    if (user?.scopes.has(scope)) return true;
    throw insufficientScope(scope);
  }
}

/**
 * The 403 of step 5, also for a scope that only the body shows to be needed (a manga mapping):
 * such a check runs in the service, after the body is validated.
 */
export function insufficientScope(scope: string): ProblemException {
  return ProblemException.of(
    403,
    PROBLEMS.insufficientScope,
    `The access token lacks the "${scope}" scope`,
    { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
  );
}
