import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { runTransaction } from '../src/database/transactions';
import { PurgeRunner } from '../src/purges/purge-runner.service';
import { UsersService } from '../src/users/users.service';
import { anime, createUserWithToken, importTitles } from './factories';
import { runCli } from './utils/cli';
import { api, useTestApp } from './utils/test-app';
import { sleep } from './utils/wait';

describe('the write connection shared by requests', () => {
  let server: NestFastifyApplication;
  useTestApp((created) => (server = created));
  const app = () => server;

  /**
   * Opens a transaction of this server that has read (and so holds its snapshot) and stays open
   * until `end` is called; `end(failure)` rolls it back.
   */
  async function holdTransaction(): Promise<{ end: (failure?: Error) => Promise<unknown> }> {
    let finish!: (failure?: Error) => void;
    const held = new Promise<Error | undefined>((resolve) => (finish = resolve));
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const transaction = runTransaction(app().get(DataSource), async (manager) => {
      await manager.query('SELECT COUNT(*) AS n FROM access_tokens');
      opened();
      const failure = await held;
      if (failure) throw failure;
    });
    await open;
    return {
      end: (failure) => {
        finish(failure);
        return transaction.catch((error: unknown) => error);
      },
    };
  }

  // Contract §4: a token revoked by the CLI (another process) is refused on the very next request.
  it('sees a revocation by another process at once, also one that waited for a transaction of this server', async () => {
    await importTitles(app(), [anime(1)]);
    const { token } = await createUserWithToken(app());
    await api(app(), token).get('/v1/my/anime/1/ratings').expect(200);

    const transaction = await holdTransaction();
    // A write from outside that transaction (here a purge round, as its timer would start one)
    // must not run inside it: it waits for its end, as the CLI's write does (a transaction begins
    // IMMEDIATE, with the write lock, which the CLI waits for up to its busy timeout).
    const purging = app().get(PurgeRunner).runOnce();
    const revoking = runCli(['tokens', 'revoke', token]);
    try {
      // Long enough for the CLI to start and wait for the lock, well within its busy timeout.
      await sleep(2500);
    } finally {
      await transaction.end();
    }
    const revoked = await revoking;
    expect({ code: revoked.code, stderr: revoked.stderr }).toEqual({ code: 0, stderr: '' });
    const refused = await api(app(), token).get('/v1/my/anime/1/ratings');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/invalid_token/);
    await purging;
    await api(app(), token).get('/v1/my/anime/1/ratings').expect(401);
  });

  it('keeps a write made outside a transaction that was open at the time and rolled back', async () => {
    const transaction = await holdTransaction();
    const creating = app().get(UsersService).create('outsider');
    // On SQLite the write waits for the transaction; give it the time to run inside it if it would.
    await sleep(200);
    const failure = new Error('rolled back on purpose');
    expect(await transaction.end(failure)).toBe(failure);
    const created = await creating;
    const found = await app().get(UsersService).findByExactName('outsider');
    expect(found?.id).toBe(created.id);
  });
});
