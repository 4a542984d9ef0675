import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiHeader,
  ApiOAuth2,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { AUTHENTICATED_KEY, REQUIRED_SCOPE_KEY } from '../common/route-metadata';
import type { AuthenticatedUser } from './authenticated-user';
import type { Scope } from './scopes';

export const BEARER_SECURITY = 'bearer';
export const OAUTH2_SECURITY = 'oauth2';

/**
 * Puts a route behind the API pipeline of contract §2: IP denial, User-Agent, bearer token.
 * The guards themselves are global (AppModule registers them in pipeline order), because their
 * order is the contract and a per-route `@UseGuards` can't put a guard after the rate limits.
 */
export function Authenticated(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(AUTHENTICATED_KEY, true),
    ApiBearerAuth(BEARER_SECURITY),
    // Both optional in the document: one of them is required, which OpenAPI cannot say.
    ApiHeader({
      name: 'User-Agent',
      required: false,
      description:
        'Required unless `Api-User-Agent` is sent. Identifies the calling application: `<AppName>/<version> (<contact>)`; generic tools and libraries (curl, python-requests, Mozilla, …) are refused.',
      example: 'ListSync/2.1.0 (admin@listsync.example)',
    }),
    ApiHeader({
      name: 'Api-User-Agent',
      required: false,
      description:
        'For browsers, which cannot set `User-Agent`: the application identity in the same form, e.g. `ListSync/2.1.0 (admin@listsync.example)`. When present it is checked instead of `User-Agent`, by the same rule. Left empty on the /docs page, the page sends its own.',
    }),
    ApiUnauthorizedResponse({
      description:
        'No bearer token (challenge `Bearer realm="ratings"`), or a malformed, unknown, expired or revoked one (`error="invalid_token"`).',
    }),
  );
}

/** `@Authenticated()` plus the OAuth scope the token must hold (403 `insufficient_scope` otherwise). */
export function Scopes(scope: Scope): MethodDecorator & ClassDecorator {
  return applyDecorators(
    Authenticated(),
    SetMetadata(REQUIRED_SCOPE_KEY, scope),
    // The same requirement as the bearer one, in the form that makes the scope machine-readable.
    ApiOAuth2([scope], OAUTH2_SECURITY),
    ApiForbiddenResponse({
      description: `User-Agent missing or generic, client address temporarily denied, or the token lacks the \`${scope}\` scope.`,
    }),
  );
}

export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser =>
    context.switchToHttp().getRequest<{ user: AuthenticatedUser }>().user,
);
