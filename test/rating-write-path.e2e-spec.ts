import { Injectable, Module, OnModuleInit } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Database, Statement } from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { OnDomainEvent, type ArgOf } from '../src/common/domain-events';
import { RATING_CHANGED_EVENT, RatingChange } from '../src/ratings/rating-change';
import { RatingWriteHooks } from '../src/ratings/rating-write-hooks';
import { RatingsModule } from '../src/ratings/ratings.module';
import { RatingsService } from '../src/ratings/ratings.service';
import { anime, createUserWithToken, importTitles, manga } from './factories';
import { api, useTestApp } from './utils/test-app';

/** A team's listener: a provider of its own module, no edit of the ratings code. */
@Injectable()
class RecordingListener {
  readonly received: RatingChange[] = [];

  @OnDomainEvent(RATING_CHANGED_EVENT)
  handle(change: ArgOf<typeof RATING_CHANGED_EVENT>): void {
    this.received.push(change);
  }
}

/** A team's hook, registered at start-up; it fails writes while `failing` is set. */
@Injectable()
class FailingHook implements OnModuleInit {
  failing = false;
  /** Each change the hook saw, with the number of entry rows carrying its revision then. */
  readonly seen: { change: RatingChange; rowsWithRevision: number }[] = [];

  constructor(private readonly hooks: RatingWriteHooks) {}

  onModuleInit(): void {
    this.hooks.register(async (em, change) => {
      // The hook sees the write it belongs to, inside the transaction.
      const [row] = await em.query<{ n: number }[]>(
        'SELECT COUNT(*) AS n FROM rating_entries WHERE user_id = ? AND revision = ?',
        [change.userId, change.revision],
      );
      this.seen.push({ change, rowsWithRevision: Number(row.n) });
      if (this.failing) throw new Error('hook refused the write');
    });
  }
}

@Module({ imports: [RatingsModule], providers: [RecordingListener, FailingHook] })
class ExtensionModule {}

const path = (media: string, id: number) => `/v1/my/${media}/${id}/ratings`;

describe('The write path of entries (one transaction, revisions, hooks, rating.changed)', () => {
  let app: NestFastifyApplication;
  let listener: RecordingListener;
  let hook: FailingHook;
  let dataSource: DataSource;

  useTestApp(
    (created) => {
      app = created;
      listener = app.get(RecordingListener);
      hook = app.get(FailingHook);
      dataSource = app.get(DataSource);
    },
    {},
    [ExtensionModule],
  );
  beforeEach(async () => {
    await importTitles(app, [anime(1), anime(2), anime(3), manga(1), manga(2)]);
    listener.received.length = 0;
    hook.seen.length = 0;
    hook.failing = false;
  });

  /** Events are emitted right after the commit, before the response is sent. */
  const received = () =>
    listener.received.map(({ kind, mediaType, titleId, revision }) => ({
      kind,
      mediaType,
      titleId,
      revision,
    }));

  async function storedRevision(userId: number, mediaType: string): Promise<number> {
    const [row] = await dataSource.query<{ revision: number }[]>(
      'SELECT revision FROM rating_revisions WHERE user_id = ? AND media_type = ?',
      [userId, mediaType],
    );
    return row ? Number(row.revision) : 0;
  }

  async function listVersion(userId: number): Promise<number> {
    const [row] = await dataSource.query<{ v: number }[]>(
      'SELECT list_version AS v FROM users WHERE id = ?',
      [userId],
    );
    return Number(row.v);
  }

  it('emits created, updated and deleted with the stored entry, after the commit', async () => {
    const { user, token } = await createUserWithToken(app);
    const client = api(app, token);
    await client.put(path('anime', 1), { status: 'ongoing', episodes_watched: 3 }).expect(200);
    const created = (await client.get(path('anime', 1)).expect(200)).body as unknown[];
    await client.put(path('anime', 1), { status: 'completed', touch: true }).expect(200);
    const updated = (await client.get(path('anime', 1)).expect(200)).body as unknown[];
    await client.delete(path('anime', 1)).expect(200);

    expect(listener.received).toEqual([
      {
        kind: 'created',
        userId: user.id,
        // From the request's principal, so that hooks need not read it.
        userName: user.name,
        mediaType: 'anime',
        titleId: 1,
        externalId: 5001,
        revision: 1,
        entry: created[0],
        previous: null,
        body: expect.objectContaining({ status: 'ongoing', episodes_watched: 3 }),
        source: 'api',
        client: null,
        at: expect.any(Date),
      },
      expect.objectContaining({
        kind: 'updated',
        revision: 2,
        entry: updated[0],
        previous: created[0],
      }),
      expect.objectContaining({
        kind: 'deleted',
        titleId: 1,
        externalId: 5001,
        revision: 3,
        entry: null,
      }),
    ]);
    // Every hook ran inside its write's transaction, where the written row was visible.
    expect(
      hook.seen.map(({ change, rowsWithRevision }) => [change.kind, rowsWithRevision]),
    ).toEqual([
      ['created', 1],
      ['updated', 1],
      ['deleted', 0],
    ]);
  });

  it('put() returns the entry as stored and as GET shows it', async () => {
    const { user, token } = await createUserWithToken(app);
    const ratings = app.get(RatingsService);
    const stored = await ratings.put(user, 'manga', { id: 1 }, {
      status: 'ongoing',
      chapters_read: 12,
      notes: 'x',
    } as never);
    const { body } = await api(app, token).get(path('manga', 1)).expect(200);
    expect(body).toEqual([stored]);
  });

  it('gives each write a strictly increasing revision per user and media type', async () => {
    const first = await createUserWithToken(app);
    const second = await createUserWithToken(app);
    const a = api(app, first.token);
    const b = api(app, second.token);
    await a.put(path('anime', 1), { status: 'ongoing' }).expect(200);
    await a.put(path('manga', 1), { status: 'ongoing' }).expect(200);
    await b.put(path('anime', 1), { status: 'ongoing' }).expect(200);
    await a.put(path('anime', 2), { status: 'ongoing' }).expect(200);
    await a.put(path('anime', 1), { status: 'ongoing' }).expect(200); // a no-op write counts too
    await a.delete(path('anime', 2)).expect(200);
    await a.delete(path('anime', 2)).expect(404); // refused: no revision
    await a.put(path('manga', 2), { status: 'ongoing' }).expect(200);

    const revisions = (userId: number, mediaType: string) =>
      listener.received
        .filter((change) => change.userId === userId && change.mediaType === mediaType)
        .map((change) => change.revision);
    expect(revisions(first.user.id, 'anime')).toEqual([1, 2, 3, 4]);
    expect(revisions(first.user.id, 'manga')).toEqual([1, 2]);
    expect(revisions(second.user.id, 'anime')).toEqual([1]);
    await expect(storedRevision(first.user.id, 'anime')).resolves.toBe(4);
    const rows = await dataSource.query<{ title_id: number; revision: number }[]>(
      'SELECT title_id, revision FROM rating_entries WHERE user_id = ? AND media_type = ? ORDER BY title_id',
      [first.user.id, 'anime'],
    );
    expect(rows.map((row) => [Number(row.title_id), Number(row.revision)])).toEqual([[1, 3]]);
  });

  it('rolls back the entry, the list version and the revision when a hook throws', async () => {
    const { user, token } = await createUserWithToken(app);
    const client = api(app, token);
    await client.put(path('anime', 1), { status: 'ongoing', episodes_watched: 3 }).expect(200);
    const before = (await client.get('/v1/my/profile').expect(200)).body as unknown;
    const version = await listVersion(user.id);
    listener.received.length = 0;

    hook.failing = true;
    await client.put(path('anime', 1), { status: 'completed', episodes_watched: 20 }).expect(500);
    await client.put(path('anime', 2), { status: 'completed' }).expect(500);
    await client.delete(path('anime', 1)).expect(500);
    hook.failing = false;

    const { body } = await client.get(path('anime', 1)).expect(200);
    expect(body).toEqual([expect.objectContaining({ status: 'ongoing', episodes_watched: 3 })]);
    await client.get(path('anime', 2)).expect(200, []);
    await expect(listVersion(user.id)).resolves.toBe(version);
    await expect(storedRevision(user.id, 'anime')).resolves.toBe(1);
    expect(listener.received).toEqual([]);
    await client.get('/v1/my/profile').expect(200, before);

    await client.put(path('anime', 2), { status: 'completed' }).expect(200);
    expect(received()).toEqual([{ kind: 'created', mediaType: 'anime', titleId: 2, revision: 2 }]);
  });

  it('never answers 5xx to concurrent PUT and DELETE of one title, and settles consistently', async () => {
    const { user, token } = await createUserWithToken(app);
    const client = api(app, token);
    const operations = Array.from({ length: 300 }, (_, i) => i);
    const statuses: number[] = [];
    const inFlight = 20;
    for (let start = 0; start < operations.length; start += inFlight) {
      const batch = operations
        .slice(start, start + inFlight)
        .map((i) =>
          i % 3 === 2
            ? client.delete(path('anime', 3))
            : client.put(path('anime', 3), { status: 'ongoing', episodes_watched: i % 24 }),
        );
      for (const response of await Promise.all(batch)) statuses.push(response.status);
    }
    expect(statuses.filter((status) => status !== 200 && status !== 404)).toEqual([]);
    const succeeded = statuses.filter((status) => status === 200).length;

    // Every successful write has its own revision, 1 to N, and the last one decides the state.
    const changes = [...listener.received].sort((x, y) => x.revision - y.revision);
    expect(changes.map((change) => change.revision)).toEqual(
      Array.from({ length: succeeded }, (_, i) => i + 1),
    );
    await expect(storedRevision(user.id, 'anime')).resolves.toBe(succeeded);
    const last = changes[changes.length - 1];
    const { body } = await client.get(path('anime', 3)).expect(200);
    expect(body).toEqual(last.kind === 'deleted' ? [] : [last.entry]);
    const [count] = await dataSource.query<{ n: number }[]>(
      'SELECT COUNT(*) AS n FROM rating_entries WHERE user_id = ?',
      [user.id],
    );
    expect(Number(count.n)).toBe(last.kind === 'deleted' ? 0 : 1);
  });

  it('writes a batch in one transaction: a revision, a hook run and an event per entry', async () => {
    const { user } = await createUserWithToken(app);
    const ratings = app.get(RatingsService);
    const result = await ratings.inWriteTransaction(async (writer) => {
      const written = [];
      for (const id of [1, 2, 3]) {
        written.push(
          await writer.put(user.id, 'anime', { id, byExternalId: false }, {
            status: 'completed',
          } as never),
        );
      }
      // A refused element can be skipped; the others stand.
      await expect(
        writer.put(user.id, 'anime', { id: 99, byExternalId: false }, {
          status: 'completed',
        } as never),
      ).rejects.toMatchObject({ status: 404 });
      written.push(await writer.remove(user.id, 'anime', { id: 2, byExternalId: false }));
      // Nothing is announced before the commit.
      expect(listener.received).toEqual([]);
      return written.map((change) => change.revision);
    });
    expect(result).toEqual([1, 2, 3, 5]);
    expect(received()).toEqual([
      { kind: 'created', mediaType: 'anime', titleId: 1, revision: 1 },
      { kind: 'created', mediaType: 'anime', titleId: 2, revision: 2 },
      { kind: 'created', mediaType: 'anime', titleId: 3, revision: 3 },
      { kind: 'deleted', mediaType: 'anime', titleId: 2, revision: 5 },
    ]);
    expect(hook.seen).toHaveLength(4);
  });

  it('writes every title with the same SQL text: no statement of its own per title', async () => {
    // better-sqlite3's driver keeps 100 prepared statements, first in, first out: a statement
    // whose text held a title's id (TypeORM's delete() and upsert() on SQLite) would be prepared
    // for each title and push the write path's own ones out.
    const { token } = await createUserWithToken(app);
    const client = api(app, token);
    const statements = statementTexts(dataSource);
    const writeStatementsOf = async (id: number): Promise<string[]> => {
      statements.clear();
      await client.put(path('anime', id), { status: 'ongoing' }).expect(200);
      await client.delete(path('anime', id)).expect(200);
      await client.put(path('anime', id), { status: 'completed' }).expect(200);
      return statements.texts().filter((sql) => /^\s*(INSERT|UPDATE|DELETE)\b/i.test(sql));
    };
    try {
      const first = new Set(await writeStatementsOf(1));
      const others = [...(await writeStatementsOf(2)), ...(await writeStatementsOf(3))];
      expect(first.size).toBeGreaterThanOrEqual(3);
      expect(others.length).toBeGreaterThanOrEqual(first.size);
      expect(others.filter((sql) => !first.has(sql))).toEqual([]);
    } finally {
      statements.restore();
    }
  });

  it('rolls a whole batch back when its work throws', async () => {
    const { user, token } = await createUserWithToken(app);
    const ratings = app.get(RatingsService);
    await expect(
      ratings.inWriteTransaction(async (writer) => {
        await writer.put(user.id, 'anime', { id: 1, byExternalId: false }, {
          status: 'completed',
        } as never);
        await writer.put(user.id, 'anime', { id: 2, byExternalId: false }, {
          status: 'completed',
        } as never);
        throw new Error('import aborted');
      }),
    ).rejects.toThrow('import aborted');
    await api(app, token).get('/v1/my/anime/ratings').expect(200, []);
    await expect(storedRevision(user.id, 'anime')).resolves.toBe(0);
    expect(listener.received).toEqual([]);
  });
});

/**
 * The texts of the statements run from now on: TypeORM's query runners pass each to the logger
 * (which prints nothing here); SQLite transactions run theirs on better-sqlite3's statements.
 */
function statementTexts(dataSource: DataSource) {
  const logged = jest.spyOn(dataSource.logger, 'logQuery');
  const connection = (dataSource.driver as unknown as { databaseConnection?: Database })
    .databaseConnection;
  const prototype = connection
    ? (Object.getPrototypeOf(connection.prepare('SELECT 1')) as Statement)
    : null;
  const run = prototype ? [jest.spyOn(prototype, 'run'), jest.spyOn(prototype, 'all')] : [];
  return {
    texts: (): string[] => [
      ...logged.mock.calls.map(([sql]) => sql),
      ...run.flatMap((spy) =>
        (spy.mock.contexts as Statement[]).map((statement) => statement.source),
      ),
    ],
    clear: (): void => {
      for (const spy of [logged, ...run]) spy.mockClear();
    },
    restore: (): void => {
      for (const spy of [logged, ...run]) spy.mockRestore();
    },
  };
}
