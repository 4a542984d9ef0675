import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ALL_SCOPES } from '../../src/auth/scopes';
import { TokensService } from '../../src/auth/tokens.service';
import type { TitleRecord } from '../../src/catalog/catalog-file';
import { CatalogService } from '../../src/catalog/catalog.service';
import type { MediaType } from '../../src/media-types/media-type';
import type { User } from '../../src/users/user.entity';
import { UsersService } from '../../src/users/users.service';
import { api } from '../utils/test-app';

let sequence = 0;

export function createUser(app: NestFastifyApplication, name = `user${++sequence}`): Promise<User> {
  return app.get(UsersService).create(name);
}

export async function issueToken(
  app: NestFastifyApplication,
  user: User,
  scopes: readonly string[] = ALL_SCOPES,
  ttlSeconds = 3600,
): Promise<string> {
  return (await app.get(TokensService).issue(user.name, scopes.join(' '), ttlSeconds)).token;
}

/** A user with a token holding every scope. */
export async function createUserWithToken(
  app: NestFastifyApplication,
  scopes: readonly string[] = ALL_SCOPES,
): Promise<{ user: User; token: string }> {
  const user = await createUser(app);
  return { user, token: await issueToken(app, user, scopes) };
}

export function anime(id: number, fields: Partial<TitleRecord> = {}): TitleRecord {
  return {
    mediaType: 'anime',
    id,
    externalId: 5000 + id,
    title: `Anime ${id}`,
    episodes: 24,
    episodeMinutes: 24,
    chapters: null,
    volumes: null,
    ...fields,
  };
}

export function manga(id: number, fields: Partial<TitleRecord> = {}): TitleRecord {
  return {
    mediaType: 'manga',
    id,
    externalId: 9000 + id,
    title: `Manga ${id}`,
    episodes: null,
    episodeMinutes: null,
    chapters: 100,
    volumes: 10,
    ...fields,
  };
}

export function importTitles(app: NestFastifyApplication, titles: TitleRecord[]) {
  return app.get(CatalogService).import(titles);
}

/**
 * A rating entry, written as its owner would (PUT through the API, answered 200): `body` is the
 * PUT body, a bare `{ status: 'ongoing' }` by default.
 */
export async function putEntry(
  app: NestFastifyApplication,
  token: string,
  mediaType: MediaType,
  titleId: number,
  body: Record<string, unknown> = { status: 'ongoing' },
): Promise<void> {
  await api(app, token).put(`/v1/my/${mediaType}/${titleId}/ratings`, body).expect(200);
}
