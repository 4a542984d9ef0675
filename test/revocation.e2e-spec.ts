import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { runTransaction } from '../src/database/transactions';
import { anime, createUserWithToken, importTitles } from './factories';
import { runCli } from './utils/cli';
import { api, useTestApp } from './utils/test-app';

// Contract §4: a token revoked by the CLI (another process) is refused on the very next request.
describe('revocation from another process', () => {
  let server: NestFastifyApplication;
  useTestApp((created) => (server = created));
  const app = () => server;

  it('is seen at once, even while another request holds a write transaction open', async () => {
    await importTitles(app(), [anime(1)]);
    const { token } = await createUserWithToken(app());
    await api(app(), token).get('/v1/my/anime/1/ratings').expect(200);

    // A write transaction of this server that has read, and so holds its snapshot, until released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const transaction = runTransaction(app().get(DataSource), async (manager) => {
      await manager.query('SELECT COUNT(*) AS n FROM access_tokens');
      opened();
      await held;
    });
    await open;
    try {
      const revoked = await runCli(['tokens', 'revoke', token]);
      expect(revoked.code).toBe(0);
      const refused = await api(app(), token).get('/v1/my/anime/1/ratings');
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toMatch(/invalid_token/);
    } finally {
      release();
      await transaction;
    }
    await api(app(), token).get('/v1/my/anime/1/ratings').expect(401);
  });
});
