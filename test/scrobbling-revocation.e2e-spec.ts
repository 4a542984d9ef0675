import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AccountErasure } from '../src/accounts/account-erasure';
import { AccountExport } from '../src/accounts/account-export';
import { AccountsModule } from '../src/accounts/accounts.module';
import { AccountTokens } from '../src/accounts/account-tokens';
import { ALL_SCOPES } from '../src/auth/scopes';
import { ClientRemoval } from '../src/oauth/client-removal';
import { ClientsService } from '../src/oauth/clients.service';
import { GrantsService } from '../src/oauth/grants.service';
import type { User } from '../src/users/user.entity';
import { anime, createUser, importTitles, issueToken } from './factories';
import { api, useTestApp } from './utils/test-app';

type Json = Record<string, unknown>;

/**
 * contract §21: a scrobbler is a write credential, so the revocations reach it; `users export`
 * lists scrobblers (never a secret), mappings and unmatched requests; erasure deletes all three.
 */
describe('scrobblers and revocation (contract §21)', () => {
  let app: NestFastifyApplication;
  let user: User;
  let cliToken: string;
  useTestApp((created) => (app = created), {}, [AccountsModule]);

  beforeEach(async () => {
    await importTitles(app, [anime(1, { title: 'Sousou no Frieren' })]);
    user = await createUser(app);
    cliToken = await issueToken(app, user);
  });

  /** An access token of an OAuth client, through a grant of the user. */
  async function clientToken(name: string) {
    const { client } = await app
      .get(ClientsService)
      .create({ name, redirectUris: ['https://app.example/callback'], isPublic: true });
    const grants = app.get(GrantsService);
    const grantId = await grants.open(client.id, user.id);
    const accessToken = randomBytes(32).toString('base64url');
    await grants.saveTokens({
      grantId,
      userId: user.id,
      clientId: client.clientId,
      scopes: [...ALL_SCOPES],
      accessToken,
      accessTokenExpiresAt: new Date(Date.now() + 3_600_000),
      refreshToken: randomBytes(32).toString('base64url'),
      refreshTokenExpiresAt: new Date(Date.now() + 86_400_000),
    });
    return { clientId: client.clientId, grantId, token: accessToken };
  }

  const create = async (token: string, name: string) =>
    (await api(app, token).post('/v1/my/scrobblers', { kind: 'generic', name }).expect(201))
      .body as { id: string; url: string };
  const names = async () =>
    ((await api(app, cliToken).get('/v1/my/scrobblers').expect(200)).body as Json[])
      .map((scrobbler) => scrobbler.name)
      .sort();
  const send = (url: string) =>
    request(app.getHttpServer())
      .post(new URL(url).pathname)
      .set('Content-Type', 'application/json')
      .send('{"event":"watched","title":"Sousou no Frieren","episode":1}');

  it('revoking a grant deletes the scrobblers its client created for the user', async () => {
    const listSync = await clientToken('ListSync');
    const fromClient = await create(listSync.token, 'from client');
    const fromCli = await create(cliToken, 'from cli');
    await app.get(GrantsService).revoke(listSync.grantId);
    expect(await names()).toEqual(['from cli']);
    await send(fromClient.url).expect(404);
    await send(fromCli.url).expect(200);
  });

  it('clients delete deletes the scrobblers that client created, and only those', async () => {
    const listSync = await clientToken('ListSync');
    const other = await clientToken('Other');
    const fromClient = await create(listSync.token, 'list sync');
    await create(other.token, 'other');
    await create(cliToken, 'cli');
    await app.get(ClientRemoval).delete(listSync.clientId);
    expect(await names()).toEqual(['cli', 'other']);
    await send(fromClient.url).expect(404);
  });

  it('tokens revoke --user deletes every scrobbler of the user', async () => {
    const listSync = await clientToken('ListSync');
    const scrobblers = [await create(listSync.token, 'a'), await create(cliToken, 'b')];
    const revoked = await app.get(AccountTokens).revokeAll(user.name);
    expect(revoked.scrobblers).toBe(1);
    for (const { url } of scrobblers) await send(url).expect(404);
    const rows = await app.get(DataSource).query('SELECT id FROM scrobblers');
    expect(rows).toEqual([]);
  });

  it('users export lists scrobblers without secrets, mappings and unmatched; users delete erases them', async () => {
    const { url } = await create(cliToken, 'script');
    await request(app.getHttpServer())
      .post(new URL(url).pathname)
      .set('Content-Type', 'application/json')
      .send('{"event":"watched","title":"Nowhere","season":2,"episode":3}')
      .expect(200);
    await api(app, cliToken)
      .put('/v1/my/scrobble-mappings', { series: 'Elsewhere', season: null, title_id: 1 })
      .expect(200);
    const exported = await app.get(AccountExport).export(user.name);
    expect(exported.scrobblers).toEqual((await api(app, cliToken).get('/v1/my/scrobblers')).body);
    expect(exported.scrobblers).toHaveLength(1);
    expect(exported.scrobble_mappings).toEqual([
      { series: 'Elsewhere', season: null, media_type: 'anime', title_id: 1, episode_offset: 0 },
    ]);
    expect(exported.unmatched_scrobbles).toEqual([
      expect.objectContaining({ series: 'Nowhere', season: 2, episodes: [3], count: 1 }),
    ]);
    expect(JSON.stringify(exported)).not.toContain(new URL(url).pathname.split('/').pop()!);

    await app.get(AccountErasure).erase(user.name);
    const dataSource = app.get(DataSource);
    for (const table of [
      'scrobblers',
      'scrobble_mappings',
      'scrobble_unmatched',
      'scrobble_recent',
    ]) {
      expect(await dataSource.query(`SELECT * FROM ${table}`)).toEqual([]);
    }
    await send(url).expect(404);
  });
});
