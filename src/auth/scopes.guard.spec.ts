import { Controller, ExecutionContext, Get } from '@nestjs/common';
import { ProblemException } from '../common/problem';
import { Scopes } from './auth.decorators';
import { SCOPES } from './scopes';
import { ScopesGuard } from './scopes.guard';

@Controller()
class ExampleController {
  @Get()
  @Scopes(SCOPES.manga)
  scoped(): void {}

  @Get()
  open(): void {}
}

function contextFor(handler: keyof ExampleController, scopes: string[]): ExecutionContext {
  const request = { user: { id: 1, name: 'a', scopes: new Set(scopes) } };
  return {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- only the reference is compared
    getHandler: () => ExampleController.prototype[handler],
    getClass: () => ExampleController,
    switchToHttp: () => ({ getRequest: () => request }),
  } as unknown as ExecutionContext;
}

describe('ScopesGuard', () => {
  const guard = new ScopesGuard();

  it('lets a token with the route scope through', () => {
    expect(guard.canActivate(contextFor('scoped', [SCOPES.anime, SCOPES.manga]))).toBe(true);
  });

  it('answers 403 insufficient_scope naming the missing scope', () => {
    let error: unknown;
    try {
      guard.canActivate(contextFor('scoped', [SCOPES.anime]));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ProblemException);
    expect((error as ProblemException).problem.status).toBe(403);
    expect((error as ProblemException).headers).toEqual({
      'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="ratings.manga"',
    });
  });

  it('ignores routes without a scope', () => {
    expect(guard.canActivate(contextFor('open', []))).toBe(true);
  });
});
