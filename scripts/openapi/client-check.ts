// Compiled (never run) by scripts/openapi/check.mjs under `tsc --strict`, next to the `schema.d.ts`
// that openapi-typescript generated from the served document: a typed client must accept what the
// API accepts and refuse, at compile time, what it refuses. Each `@ts-expect-error` fails the
// compilation if the line below it compiles, so a document that types manga bodies as anime fails.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_proof?: T): void {}

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000' });
const header = { 'User-Agent': 'ListSync/2.1.0 (admin@listsync.example)' };
const id = { id: 5114 };

export async function mangaCalls(): Promise<number> {
  await client.PUT('/v1/my/manga/{id}/ratings', {
    params: { path: id, header },
    body: { status: 'ongoing', chapters_read: 120, volumes_read: 13 },
  });
  await client.PUT('/v1/my/manga/{id}/ratings', {
    params: { path: id, header },
    // @ts-expect-error episodes_watched is an anime field
    body: { status: 'ongoing', episodes_watched: 3 },
  });
  const { data } = await client.GET('/v1/my/manga/{id}/ratings', { params: { path: id, header } });
  assertType<Equal<NonNullable<typeof data>, components['schemas']['MangaRatingView'][]>>();
  const all = await client.GET('/v1/my/manga/ratings', { params: { header } });
  assertType<Equal<NonNullable<typeof all.data>, components['schemas']['MangaRatingView'][]>>();
  const changes = await client.GET('/v1/my/manga/changes', { params: { header } });
  assertType<
    Equal<NonNullable<typeof changes.data>['changes'], components['schemas']['MangaRatingView'][]>
  >();
  return data?.[0]?.chapters_read ?? 0;
}

export async function animeCalls(): Promise<number> {
  await client.PUT('/v1/my/anime/{id}/ratings', {
    params: { path: id, header },
    body: { status: 'completed', episodes_watched: 64 },
  });
  await client.PUT('/v1/my/anime/{id}/ratings', {
    params: { path: id, header },
    // @ts-expect-error chapters_read is a manga field
    body: { status: 'completed', chapters_read: 3 },
  });
  const { data, error } = await client.GET('/v1/my/anime/{id}/ratings', {
    params: { path: id, header },
  });
  if (error) return error.status;
  assertType<Equal<NonNullable<typeof data>, components['schemas']['AnimeRatingView'][]>>();
  return data[0]?.episodes_watched ?? 0;
}

export async function profileCall(): Promise<number> {
  const { data } = await client.GET('/v1/my/profile', { params: { header } });
  return data?.statistics.manga.chapters ?? 0;
}
