import { applyDecorators } from '@nestjs/common';
import { ApiNotFoundResponse, ApiParam } from '@nestjs/swagger';
import { ProblemException } from '../common/problem';
import type { UsersService } from '../users/users.service';

/** The `:name` of a public read, and its 404 when no user has that name. */
export function OwnerNameParam(): MethodDecorator {
  return applyDecorators(
    ApiParam({
      name: 'name',
      description:
        'The user\'s name, percent-encoded like any path segment (`a%20b%2Fc` for "a b/c"); compared exactly: letter case and spaces count',
      example: 'alice',
    }),
    ApiNotFoundResponse({ description: 'No user has this name (or PUBLIC_LISTS is off)' }),
  );
}

/** The user a public read names, else a 404. */
export async function findPublicOwner(
  users: UsersService,
  name: string,
): Promise<{ id: number; createdAt: string }> {
  const owner = await users.findByExactName(name);
  if (!owner) throw ProblemException.notFound(`No user is named ${JSON.stringify(name)}`);
  return owner;
}
