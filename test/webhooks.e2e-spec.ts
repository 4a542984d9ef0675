import { writeFileSync } from 'node:fs';
import { createServer, IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { anime, createUser, createUserWithToken, importTitles, manga } from './factories';
import { loadConfig, MAX_WEBHOOK_TIMEOUT_SECONDS } from '../src/config/app-config';
import { PurgeRunner } from '../src/purges/purge-runner.service';
import { RatingsService } from '../src/ratings/ratings.service';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher';
import { WebhookEndpointsRepository } from '../src/webhooks/webhook-endpoints.repository';
import { WebhookOutboxRepository } from '../src/webhooks/webhook-outbox.repository';
import { WebhookRecordingRepository } from '../src/webhooks/webhook-recording.repository';
import { WebhookSender } from '../src/webhooks/webhook-sender';
import { WebhooksService } from '../src/webhooks/webhooks.service';
import { exitOf, freePort, runCli, startServer } from './utils/cli';
import { api, createTestApp, resetDatabase, USER_AGENT, useTestApp } from './utils/test-app';
import { tempDir } from './utils/test-services';
import { eventually, serverIsLive, sleep } from './utils/wait';

// Every CLI run starts a process of its own: slow on a busy machine.
jest.setTimeout(120_000);

/** The `webhooks` commands of the app's database under a configuration of their own. */
const webhooksService = (app: NestFastifyApplication, env: Record<string, string | undefined>) =>
  new WebhooksService(
    loadConfig({ DATABASE_URL: process.env.E2E_DATABASE_URL, ...env }),
    app.get(WebhookEndpointsRepository),
    app.get(WebhookOutboxRepository),
  );

interface CreatedWebhook {
  id: string;
  url: string;
  events: string[];
  secret: string;
}

interface MessageRow {
  event_id: string;
  webhook_id: string;
  event_type: string;
  body: string;
  state: string;
}

describe('webhooks: endpoints and outbox', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created), { WEBHOOK_ALLOW_PRIVATE: 'true' });

  beforeEach(async () => {
    await importTitles(app, [anime(1), anime(2), manga(1, { externalId: null })]);
  });

  const messages = () =>
    app
      .get(DataSource)
      .query<MessageRow[]>(
        'SELECT event_id, webhook_id, event_type, body, state FROM webhook_messages ORDER BY id',
      );
  const createWebhook = (url: string, events?: string) =>
    app.get(WebhooksService).create(url, events);

  describe('the webhooks command', () => {
    it('creates (secret printed once), lists, deletes; an unknown id exits non-zero', async () => {
      const result = await runCli(['webhooks', 'create', '--url', 'http://127.0.0.1:9/hook'], {
        WEBHOOK_ALLOW_PRIVATE: 'true',
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const created = JSON.parse(result.stdout) as CreatedWebhook;
      expect(Object.keys(created)).toEqual(['id', 'url', 'events', 'secret']);
      expect(created.url).toBe('http://127.0.0.1:9/hook');
      expect(created.events).toEqual(['rating.created', 'rating.updated', 'rating.deleted']);
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

      const listed = await runCli(['webhooks', 'list']);
      expect(listed.code).toBe(0);
      const lines = listed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as object);
      expect(lines).toEqual([
        {
          id: created.id,
          url: created.url,
          events: created.events,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        },
      ]);
      expect(listed.stdout).not.toContain(created.secret);

      const deliveries = await runCli(['webhooks', 'deliveries', created.id]);
      expect(deliveries.code).toBe(0);
      expect(deliveries.stdout).toBe('');
      expect((await runCli(['webhooks', 'delete', created.id])).code).toBe(0);
      expect(await app.get(WebhooksService).list()).toEqual([]);
      const again = await runCli(['webhooks', 'delete', created.id]);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/no webhook with id/);
      await expect(app.get(WebhooksService).deliveries(created.id)).rejects.toThrow(
        /no webhook with id/,
      );
    });

    it('takes --events and exits non-zero naming an unknown event', async () => {
      const result = await runCli(
        [
          'webhooks',
          'create',
          '--url',
          'http://127.0.0.1:9/',
          '--events',
          'rating.deleted,rating.viewed',
        ],
        { WEBHOOK_ALLOW_PRIVATE: 'true' },
      );
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/unknown event "rating\.viewed"/);
      const created = await createWebhook(
        'http://127.0.0.1:9/hook',
        'rating.deleted, rating.created',
      );
      expect(created.events).toEqual(['rating.created', 'rating.deleted']);
    });

    it('exits non-zero for a loopback receiver without WEBHOOK_ALLOW_PRIVATE=true', async () => {
      const result = await runCli(['webhooks', 'create', '--url', 'http://localhost:8080/hook'], {
        WEBHOOK_ALLOW_PRIVATE: 'false',
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(
        /localhost resolves to an address that is not globally reachable \(127\.0\.0\.1 is in a loopback range\)/,
      );
      expect(await app.get(WebhooksService).list()).toEqual([]);
    });

    it('refuses private, link-local and mapped addresses and non-http URLs', async () => {
      const strict = webhooksService(app, {});
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://[::1]/hook',
        'http://10.0.0.5/hook',
        'http://100.64.0.1/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[::ffff:192.168.0.1]/hook',
        'http://[fd00::1]/hook',
      ]) {
        await expect(strict.create(url)).rejects.toThrow(/not globally reachable/);
      }
      for (const url of ['ftp://example.com/hook', 'not a url', 'file:///etc/passwd']) {
        await expect(strict.create(url)).rejects.toThrow(/--url/);
      }
      expect(await app.get(WebhooksService).list()).toEqual([]);
    });
  });

  describe('outbox', () => {
    it('records one message per event and webhook in the write, with the body of contract §15', async () => {
      const all = await createWebhook('http://127.0.0.1:9/all');
      const deletions = await createWebhook('http://127.0.0.1:9/deleted', 'rating.deleted');
      const { user, token } = await createUserWithToken(app);

      await api(app, token)
        .put('/v1/my/anime/1/ratings', { status: 'ongoing', notes: 'secret' })
        .expect(200);
      await api(app, token).put('/v1/my/anime/1/ratings', { status: 'completed' }).expect(200);
      await api(app, token).delete('/v1/my/anime/1/ratings').expect(200);
      await api(app, token).put('/v1/my/manga/1/ratings', { status: 'bookmark' }).expect(200);

      const rows = await messages();
      // Events in write order; one webhook-id per event, the same for every webhook receiving it.
      const events = [...new Set(rows.map((row) => row.event_id))].map((eventId) => {
        const of = rows.filter((row) => row.event_id === eventId);
        return {
          type: of[0].event_type,
          webhooks: of.map((row) => row.webhook_id).sort(),
          body: of[0].body,
        };
      });
      expect(events.map(({ type, webhooks }) => [type, webhooks])).toEqual([
        ['rating.created', [all.id]],
        ['rating.updated', [all.id]],
        ['rating.deleted', [all.id, deletions.id].sort()],
        ['rating.created', [all.id]],
      ]);
      expect(
        rows.filter((row) => row.event_type === 'rating.deleted').map((row) => row.body),
      ).toEqual([events[2].body, events[2].body]);

      const [created, updated, deleted, mangaCreated] = events.map(
        (event) => JSON.parse(event.body) as Record<string, unknown>,
      );
      const entry = (await api(app, token).get('/v1/my/manga/1/ratings').expect(200))
        .body as object[];
      expect(mangaCreated).toEqual({
        type: 'rating.created',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        data: {
          user: { id: user.id, name: user.name },
          media_type: 'manga',
          title_id: 1,
          external_id: null,
          revision: 1,
          entry: entry[0],
        },
      });
      expect(Object.keys(created)).toEqual(['type', 'timestamp', 'data']);
      expect(created).toMatchObject({
        data: { media_type: 'anime', title_id: 1, external_id: 5001, revision: 1 },
      });
      expect((created.data as { entry: { notes: string } }).entry.notes).toBe('secret');
      expect(updated).toMatchObject({
        type: 'rating.updated',
        data: { revision: 2, entry: { status: 'completed' } },
      });
      expect(deleted).toMatchObject({ type: 'rating.deleted', data: { revision: 3, entry: null } });
    });

    it('records nothing for a write that fails, nor without webhooks, nor after delete', async () => {
      const { token } = await createUserWithToken(app);
      await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);
      expect(await messages()).toEqual([]);

      const created = await createWebhook('http://127.0.0.1:9/hook');
      await api(app, token).put('/v1/my/anime/99/ratings', { status: 'ongoing' }).expect(404);
      await api(app, token).put('/v1/my/anime/2/ratings', { status: 'nonsense' }).expect(400);
      await api(app, token).delete('/v1/my/anime/2/ratings').expect(404);
      expect(await messages()).toEqual([]);

      await app.get(WebhooksService).delete(created.id);
      await api(app, token).put('/v1/my/anime/1/ratings', { status: 'dropped' }).expect(200);
      expect(await messages()).toEqual([]);
    });
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request had arrived whole, and when it was answered (Date.now()). */
  at: number;
  answeredAt?: number;
}

/**
 * A local receiver: records every request and answers with what `respond` says (null: never),
 * keeping count of the requests it has not answered yet.
 */
class Receiver {
  readonly received: Received[] = [];
  respond: (count: number) => number | null | Promise<number | null> = () => 200;
  open = 0;
  mostOpen = 0;
  private server = createServer((request, response) => {
    this.mostOpen = Math.max(this.mostOpen, ++this.open);
    response.on('close', () => this.open--);
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const received: Received = { headers: request.headers, body, at: Date.now() };
      this.received.push(received);
      void Promise.resolve(this.respond(this.received.length)).then((status) => {
        if (status === null || response.destroyed) return;
        received.answeredAt = Date.now();
        response.writeHead(status).end('ok');
      });
    });
  });

  async start(): Promise<string> {
    await this.listenOn(0);
    return `http://127.0.0.1:${this.port}/hook`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  listenOn(port: number): Promise<void> {
    return new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  ids(): string[] {
    return this.received.map((request) => String(request.headers['webhook-id']));
  }
}

function verified(received: Received, secret: string): unknown {
  return new StandardWebhook(secret).verify(received.body, {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  });
}

interface StoredMessage {
  webhookId: string;
  id: number;
  eventId: string;
}

/**
 * A pending outbox message: due at `nextAttemptAt`, or leased to `leasedBy` for a minute from
 * `now` (a leased message is due again when its lease ends).
 */
async function insertMessage(
  dataSource: DataSource,
  message: {
    webhookId?: string;
    eventId: string;
    now: number;
    nextAttemptAt?: number;
    leasedBy?: string | null;
  },
): Promise<StoredMessage> {
  const { webhookId = 'w', eventId, now, leasedBy = null } = message;
  const leaseUntil = leasedBy ? now + 60_000 : 0;
  await dataSource.query(
    `INSERT INTO webhook_messages (event_id, webhook_id, event_type, user_id, body, state, attempts,
        next_attempt_at, lease_until, leased_by, created_at)
      VALUES (?, ?, 'rating.created', 1, '{}', 'pending', 0, ?, ?, ?, ?)`,
    [
      eventId,
      webhookId,
      leasedBy ? leaseUntil : (message.nextAttemptAt ?? now),
      leaseUntil,
      leasedBy,
      now,
    ],
  );
  const [row] = await dataSource.query<{ id: number }[]>(
    'SELECT id FROM webhook_messages WHERE event_id = ?',
    [eventId],
  );
  return { webhookId, id: Number(row.id), eventId };
}

/** A first attempt of `message` that was delivered at `at`, as the dispatcher records it. */
function deliveredAttempt(message: StoredMessage, at: number) {
  return {
    webhookId: message.webhookId,
    message: {
      id: message.id,
      eventId: message.eventId,
      eventType: 'rating.created' as const,
      body: '{}',
      attempts: 0,
    },
    attempt: {
      eventId: message.eventId,
      eventType: 'rating.created' as const,
      attemptedAt: at,
      status: 204,
      error: null,
      outcome: 'delivered' as const,
    },
    nextAttemptAt: null,
  };
}

describe('webhooks: rows of the outbox and the log', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createTestApp();
    await resetDatabase(app);
  });

  afterAll(async () => {
    await app.close();
  });

  it('removes attempts logged and events finished more than 30 days ago', async () => {
    const dataSource = app.get(DataSource);
    const now = Date.now();
    const old = now - 31 * 86_400_000;
    const recent = now - 29 * 86_400_000;
    await dataSource.query(
      `INSERT INTO webhooks (id, url, events, secret, created_at)
        VALUES ('w', 'https://example.com/hook', 'rating.created', 'whsec_x', '2026-01-01 00:00:00')`,
    );
    for (const [eventId, at] of [
      ['msg_old', old],
      ['msg_recent', recent],
    ] as const) {
      await dataSource.query(
        `INSERT INTO webhook_attempts (webhook_id, event_id, event_type, attempted_at, status, error, outcome)
          VALUES ('w', ?, 'rating.created', ?, 200, NULL, 'delivered')`,
        [eventId, at],
      );
    }
    for (const [eventId, state, finishedAt] of [
      ['msg_old_delivered', 'delivered', old],
      ['msg_old_failed', 'failed', old],
      ['msg_recent', 'delivered', recent],
      ['msg_pending', 'pending', null],
      // Left by a webhook deleted while a write that had read it was running: never delivered.
      ['msg_of_deleted_webhook', 'pending', null],
    ] as const) {
      await dataSource.query(
        `INSERT INTO webhook_messages (event_id, webhook_id, event_type, user_id, body, state, attempts,
            next_attempt_at, lease_until, created_at, finished_at)
          VALUES (?, ?, 'rating.created', 1, '{}', ?, 1, ?, 0, ?, ?)`,
        [
          eventId,
          eventId === 'msg_of_deleted_webhook' ? 'gone' : 'w',
          state,
          // A finished message's next_attempt_at is its finishing time; a pending one is not due.
          finishedAt ?? now + 86_400_000,
          old,
          finishedAt,
        ],
      );
    }
    await dataSource.query(
      "UPDATE purge_leases SET holder = NULL, expires_at = '1970-01-01 00:00:00'",
    );

    const purged = await app.get(PurgeRunner).runOnce();
    expect(purged).toMatchObject({
      webhook_attempts: 1,
      webhook_events: 2,
      webhook_events_of_deleted_webhooks: 1,
    });
    const attempts = await dataSource.query<{ event_id: string }[]>(
      'SELECT event_id FROM webhook_attempts',
    );
    expect(attempts.map((row) => row.event_id)).toEqual(['msg_recent']);
    const messages = await dataSource.query<{ event_id: string }[]>(
      'SELECT event_id FROM webhook_messages ORDER BY id',
    );
    expect(messages.map((row) => row.event_id)).toEqual(['msg_recent', 'msg_pending']);
    await resetDatabase(app);
  });

  it('records an attempt only while its instance still holds the message', async () => {
    const dataSource = app.get(DataSource);
    const now = Date.now();
    const insert = (eventId: string, leasedBy: string) =>
      insertMessage(dataSource, { eventId, now, leasedBy });
    // The lease of instance A ran out and instance B claimed the message again meanwhile.
    const taken = await insert('msg_taken_over', 'instance-b');
    const held = await insert('msg_held', 'instance-a');
    // The message of an earlier attempt was deleted and its id given to a later event.
    const reused = await insert('msg_later', 'instance-a');
    const claimed = await app
      .get(WebhookRecordingRepository)
      .recordAttempts(
        [
          deliveredAttempt(taken, now),
          deliveredAttempt(held, now),
          deliveredAttempt({ ...reused, eventId: 'msg_deleted' }, now),
        ],
        'instance-a',
        now,
        null,
      );
    expect(claimed).toEqual([]);
    const messages = await dataSource.query<
      { event_id: string; state: string; leased_by: string | null }[]
    >('SELECT event_id, state, leased_by FROM webhook_messages ORDER BY id');
    expect(messages).toEqual([
      { event_id: 'msg_taken_over', state: 'pending', leased_by: 'instance-b' },
      { event_id: 'msg_held', state: 'delivered', leased_by: null },
      { event_id: 'msg_later', state: 'pending', leased_by: 'instance-a' },
    ]);
    const logged = await dataSource.query<{ event_id: string }[]>(
      'SELECT event_id FROM webhook_attempts',
    );
    expect(logged.map((row) => row.event_id)).toEqual(['msg_held']);
    await resetDatabase(app);
  });
});

describe('webhooks: the claim inside a recording', () => {
  let app: NestFastifyApplication;
  let dataSource: DataSource;
  let repository: WebhookRecordingRepository;
  const now = Date.now();

  beforeAll(async () => {
    app = await createTestApp();
    // This instance's own worker would claim the due messages first.
    await app.get(WebhookDispatcher).onModuleDestroy();
    dataSource = app.get(DataSource);
    repository = app.get(WebhookRecordingRepository);
  });

  beforeEach(async () => {
    await resetDatabase(app);
    for (const id of ['w', 'v']) {
      await dataSource.query(
        `INSERT INTO webhooks (id, url, events, secret, created_at)
          VALUES (?, 'http://192.0.2.1/', 'rating.created', 'whsec_x', '2026-01-01 00:00:00')`,
        [id],
      );
    }
  });

  afterAll(async () => {
    await app.close();
  });

  const insert = (
    webhookId: string,
    eventId: string,
    nextAttemptAt: number,
    leasedBy: string | null,
  ) => insertMessage(dataSource, { webhookId, eventId, now, nextAttemptAt, leasedBy });
  const delivered = (message: StoredMessage) => deliveredAttempt(message, now);
  const leases = async () =>
    (
      await dataSource.query<
        {
          event_id: string;
          state: string;
          leased_by: string | null;
          lease_until: number | string;
        }[]
      >('SELECT event_id, state, leased_by, lease_until FROM webhook_messages ORDER BY id')
    ).map((row) => [row.event_id, row.state, row.leased_by, Number(row.lease_until)]);

  it("leases the webhook's next due messages, within the room left over all instances", async () => {
    const done = await insert('w', 'msg_done', 0, 'instance-a');
    await insert('w', 'msg_running_elsewhere', 0, 'instance-b');
    await insert('w', 'msg_due_first', now - 2_000, null);
    await insert('w', 'msg_due_second', now - 1_000, null);
    await insert('w', 'msg_due_third', now - 500, null);
    await insert('w', 'msg_not_due', now + 60_000, null);
    // Room for 3, one of them taken by instance B's running attempt.
    const claimed = await repository.recordAttempts([delivered(done)], 'instance-a', now, {
      max: 3,
      leaseUntil: now + 30_000,
    });
    expect(claimed.map((work) => work.webhook.id)).toEqual(['w']);
    expect(claimed[0].messages.map((message) => message.eventId)).toEqual([
      'msg_due_first',
      'msg_due_second',
    ]);
    expect(await leases()).toEqual([
      ['msg_done', 'delivered', null, 0],
      ['msg_running_elsewhere', 'pending', 'instance-b', now + 60_000],
      ['msg_due_first', 'pending', 'instance-a', now + 30_000],
      ['msg_due_second', 'pending', 'instance-a', now + 30_000],
      ['msg_due_third', 'pending', null, 0],
      ['msg_not_due', 'pending', null, 0],
    ]);
  });

  it('records attempts of two webhooks without claiming: each is claimed in a transaction of its own', async () => {
    const ofW = await insert('w', 'msg_w_done', 0, 'instance-a');
    const ofV = await insert('v', 'msg_v_done', 0, 'instance-a');
    await insert('w', 'msg_w_due', now - 1_000, null);
    await insert('v', 'msg_v_due', now - 1_000, null);
    const claimed = await repository.recordAttempts(
      [delivered(ofW), delivered(ofV)],
      'instance-a',
      now,
      { max: 8, leaseUntil: now + 30_000 },
    );
    expect(claimed).toEqual([]);
    expect(await leases()).toEqual([
      ['msg_w_done', 'delivered', null, 0],
      ['msg_v_done', 'delivered', null, 0],
      ['msg_w_due', 'pending', null, 0],
      ['msg_v_due', 'pending', null, 0],
    ]);
  });
});

describe('webhooks: delivery', () => {
  let app: NestFastifyApplication;
  let receiver: Receiver;
  let url: string;

  useTestApp((created) => (app = created), {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_SECONDS: '1,1',
    WEBHOOK_TIMEOUT_SECONDS: '1',
  });

  beforeEach(async () => {
    await importTitles(app, [anime(1), anime(2)]);
    receiver = new Receiver();
    url = await receiver.start();
  });

  afterEach(async () => {
    await receiver.stop();
  });

  const states = () =>
    app
      .get(DataSource)
      .query<{ state: string }[]>('SELECT state FROM webhook_messages ORDER BY id')
      .then((rows) => rows.map((row) => row.state));
  const settled = async () => (await states()).every((state) => state !== 'pending');

  it('delivers each event type once, signed as Standard Webhooks v1', async () => {
    const webhook = await app.get(WebhooksService).create(url);
    const { user, token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'completed' }).expect(200);
    await api(app, token).delete('/v1/my/anime/1/ratings').expect(200);

    await eventually(async () => receiver.received.length >= 3 && (await settled()));
    expect(await states()).toEqual(['delivered', 'delivered', 'delivered']);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.ids()).size).toBe(3);
    const bodies = receiver.received.map((received) => {
      expect(received.headers['content-type']).toBe('application/json');
      expect(received.headers['webhook-id']).toMatch(/^msg_/);
      expect(received.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(() =>
        verified(received, 'whsec_' + Buffer.from('wrong').toString('base64')),
      ).toThrow();
      return verified(received, webhook.secret) as { type: string; data: Record<string, unknown> };
    });
    expect(bodies.map((body) => body.type).sort()).toEqual([
      'rating.created',
      'rating.deleted',
      'rating.updated',
    ]);
    for (const body of bodies) {
      expect(body.data).toMatchObject({ user: { id: user.id, name: user.name }, title_id: 1 });
    }

    const log = await app.get(WebhooksService).deliveries(webhook.id);
    expect(log).toHaveLength(3);
    for (const attempt of log) {
      expect(attempt).toMatchObject({ status: 200, error: null, outcome: 'delivered' });
    }
    expect(log.map((attempt) => attempt['webhook-id']).sort()).toEqual(receiver.ids().sort());
    const metrics = await request(app.getHttpServer()).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^webhook_deliveries_total\{outcome="delivered"\} 3$/m);
  });

  it('retries a failing receiver with the same webhook-id, signed again', async () => {
    receiver.respond = (count) => (count === 1 ? 500 : 200);
    const webhook = await app.get(WebhooksService).create(url, 'rating.created');
    const { token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/2/ratings', { status: 'ongoing' }).expect(200);

    await eventually(settled);
    expect(await states()).toEqual(['delivered']);
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
      Number(first.headers['webhook-timestamp']),
    );
    verified(first, webhook.secret);
    verified(second, webhook.secret);

    const log = await app.get(WebhooksService).deliveries(webhook.id);
    expect(log.map(({ status, outcome }) => [status, outcome])).toEqual([
      [200, 'delivered'],
      [500, 'retrying'],
    ]);
    expect(log[0]['webhook-id']).toBe(first.headers['webhook-id']);
  });

  it('records the event failed after 1 + N attempts against a receiver that never answers', async () => {
    receiver.respond = () => null;
    const webhook = await app.get(WebhooksService).create(url);
    const { token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);

    await eventually(settled);
    expect(await states()).toEqual(['failed']);
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.ids()).size).toBe(1);
    const log = await app.get(WebhooksService).deliveries(webhook.id);
    expect(log.map(({ outcome }) => outcome)).toEqual(['failed', 'retrying', 'retrying']);
    for (const attempt of log) {
      expect(attempt.status).toBeNull();
      expect(attempt.error).toMatch(/no complete response within 1 s/);
    }
    const printed = await runCli(['webhooks', 'deliveries', webhook.id]);
    expect(printed.code).toBe(0);
    expect(
      printed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(log);
  });

  it('does not follow a redirect: the 3xx is recorded and retried', async () => {
    receiver.respond = (count) => (count === 1 ? 302 : 204);
    const webhook = await app.get(WebhooksService).create(url);
    const { token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);

    await eventually(settled);
    const log = await app.get(WebhooksService).deliveries(webhook.id);
    expect(log.map(({ status, outcome }) => [status, outcome])).toEqual([
      [204, 'delivered'],
      [302, 'retrying'],
    ]);
  });

  it('makes no attempt for a deleted webhook, retries included', async () => {
    receiver.respond = () => 500;
    const webhook = await app.get(WebhooksService).create(url);
    const { token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);
    await eventually(() => receiver.received.length >= 1);
    await app.get(WebhooksService).delete(webhook.id);
    const seen = receiver.received.length;
    // Past the 1 s retry delay and the poll: a retry would have come by now.
    await sleep(3000);
    expect(receiver.received.length).toBe(seen);
    expect(await states()).toEqual([]);
  });

  it('two instances on one database deliver each of 500 events once, both taking part', async () => {
    const second = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    // Call-through spies: they count each instance's attempts and change nothing.
    const sent = [app, second].map((instance) => jest.spyOn(instance.get(WebhookSender), 'send'));
    // Answers that take 20 to 160 ms, as a real receiver's vary. Attempts that all end together
    // are recorded together, and the instance that recorded them claims the webhook's 8 slots
    // again before the other's poll (once a second) finds one free.
    receiver.respond = (count) => sleep(20 + (count % 8) * 20).then(() => 200);
    try {
      await importTitles(
        app,
        Array.from({ length: 500 }, (_, index) => anime(index + 1)),
      );
      await app.get(WebhooksService).create(url);
      const { user } = await createUserWithToken(app);
      await app.get(RatingsService).inWriteTransaction(async (writer) => {
        for (let id = 1; id <= 500; id++) {
          await writer.put(
            user.id,
            'anime',
            { id, byExternalId: false },
            {
              status: 'ongoing',
            },
          );
        }
      });
      await eventually(async () => receiver.received.length >= 500 && (await settled()), 120_000);
      expect(new Set(receiver.ids()).size).toBe(500);
      expect(receiver.received).toHaveLength(500);
      const [first, other] = sent.map((spy) => spy.mock.calls.length);
      expect(first + other).toBe(500);
      expect(first).toBeGreaterThan(0);
      expect(other).toBeGreaterThan(0);
    } finally {
      for (const spy of sent) spy.mockRestore();
      await second.close();
    }
  });
});

describe('webhooks: the bounds of delivery', () => {
  let app: NestFastifyApplication;
  let receiver: Receiver;
  let url: string;

  useTestApp((created) => (app = created), {
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_SECONDS: '1,2',
  });

  beforeEach(async () => {
    await importTitles(
      app,
      Array.from({ length: 20 }, (_, index) => anime(index + 1)),
    );
    receiver = new Receiver();
    url = await receiver.start();
  });

  afterEach(async () => {
    await receiver.stop();
  });

  const settled = async () => {
    const rows = await app
      .get(DataSource)
      .query<{ state: string }[]>('SELECT state FROM webhook_messages');
    return rows.every((row) => row.state !== 'pending');
  };

  it('runs at most 8 attempts at once for one webhook, and sends every event in turn', async () => {
    receiver.respond = () => sleep(2000).then(() => 200);
    await app.get(WebhooksService).create(url);
    const { user } = await createUserWithToken(app);
    await app.get(RatingsService).inWriteTransaction(async (writer) => {
      for (let id = 1; id <= 20; id++) {
        await writer.put(user.id, 'anime', { id, byExternalId: false }, { status: 'ongoing' });
      }
    });

    await eventually(async () => receiver.received.length >= 20 && (await settled()));
    expect(new Set(receiver.ids()).size).toBe(20);
    expect(receiver.received).toHaveLength(20);
    expect(receiver.mostOpen).toBeLessThanOrEqual(8);
    // The receiver held attempts long enough for them to overlap: the bound was put to the test.
    expect(receiver.mostOpen).toBeGreaterThan(1);
  });

  it('makes the first attempt within 5 s of the commit', async () => {
    await app.get(WebhooksService).create(url);
    const { token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);
    const committed = Date.now();

    await eventually(() => receiver.received.length === 1);
    expect(receiver.received[0].at - committed).toBeLessThan(5000);
  });

  it('waits at least each delay of WEBHOOK_RETRY_SECONDS after a failure before retrying', async () => {
    receiver.respond = (count) => (count <= 2 ? 500 : 200);
    const webhook = await app.get(WebhooksService).create(url);
    const { token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);

    await eventually(async () => receiver.received.length >= 3 && (await settled()));
    const [first, second, third] = receiver.received;
    expect(second.at - first.answeredAt!).toBeGreaterThanOrEqual(1000);
    expect(third.at - second.answeredAt!).toBeGreaterThanOrEqual(2000);
    const log = await app.get(WebhooksService).deliveries(webhook.id);
    expect(log.map(({ status, outcome }) => [status, outcome])).toEqual([
      [200, 'delivered'],
      [500, 'retrying'],
      [500, 'retrying'],
    ]);
  });

  it('delivers the writes of `lists import` run by the CLI: one rating.created per element', async () => {
    const webhook = await app.get(WebhooksService).create(url);
    const user = await createUser(app, 'importer');
    const file = join(tempDir('ratings-webhooks-'), 'animelist.xml');
    const elements = [1, 2, 3].map(
      (id) =>
        `<anime><series_animedb_id>${5000 + id}</series_animedb_id><my_status>Watching</my_status></anime>`,
    );
    writeFileSync(
      file,
      `<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n` +
        '<myinfo><user_id>1</user_id><user_name>someone</user_name><user_export_type>1</user_export_type></myinfo>\n' +
        `${elements.join('\n')}\n</myanimelist>\n`,
    );

    const imported = await runCli([
      'lists',
      'import',
      '--user',
      'importer',
      '--media-type',
      'anime',
      file,
    ]);
    const exited = Date.now();
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout)).toMatchObject({ created: 3, updated: 0, unchanged: 0 });

    await eventually(async () => receiver.received.length >= 3 && (await settled()));
    expect(receiver.received).toHaveLength(3);
    // The commit came before the CLI exited.
    expect(Math.min(...receiver.received.map((received) => received.at)) - exited).toBeLessThan(
      5000,
    );
    const bodies = receiver.received.map(
      (received) =>
        verified(received, webhook.secret) as {
          type: string;
          data: { user: { name: string }; title_id: number };
        },
    );
    expect(bodies.map((body) => body.type)).toEqual([
      'rating.created',
      'rating.created',
      'rating.created',
    ]);
    expect(bodies.map((body) => body.data.title_id).sort()).toEqual([1, 2, 3]);
    for (const body of bodies) expect(body.data.user).toEqual({ id: user.id, name: 'importer' });
  });
});

describe('webhooks: receivers refused at delivery without WEBHOOK_ALLOW_PRIVATE', () => {
  let app: NestFastifyApplication;
  let receiver: Receiver;

  useTestApp((created) => (app = created), { WEBHOOK_RETRY_SECONDS: '0' });

  beforeEach(async () => {
    await importTitles(app, [anime(1)]);
    receiver = new Receiver();
    await receiver.start();
  });

  afterEach(async () => {
    await receiver.stop();
  });

  /** Made while private receivers were allowed; the server no longer allows them. */
  const createPermissively = (url: string) =>
    webhooksService(app, { WEBHOOK_ALLOW_PRIVATE: 'true' }).create(url);

  const failedAttempts = async (webhookId: string) => {
    const { token } = await createUserWithToken(app);
    await api(app, token).put('/v1/my/anime/1/ratings', { status: 'ongoing' }).expect(200);
    await eventually(
      async () => (await app.get(WebhooksService).deliveries(webhookId)).length === 2,
    );
    const log = await app.get(WebhooksService).deliveries(webhookId);
    expect(log.map(({ outcome }) => outcome)).toEqual(['failed', 'retrying']);
    for (const attempt of log) expect(attempt.status).toBeNull();
    return log;
  };

  it('records the attempts failed without connecting to 127.0.0.1', async () => {
    const webhook = await createPermissively(`http://127.0.0.1:${receiver.port}/hook`);
    for (const attempt of await failedAttempts(webhook.id)) {
      expect(attempt.error).toMatch(/127\.0\.0\.1 is in a loopback range/);
    }
    expect(receiver.received).toEqual([]);
  });

  it('checks the addresses a host name resolves to when attempting, not only at creation', async () => {
    const webhook = await createPermissively(`http://localhost:${receiver.port}/hook`);
    for (const attempt of await failedAttempts(webhook.id)) {
      expect(attempt.error).toMatch(
        /localhost resolves to an address that is not globally reachable \((127\.0\.0\.1|::1) is in a loopback range\)/,
      );
    }
    expect(receiver.received).toEqual([]);
  });
});

describe('webhooks: a server killed right after a committed PUT', () => {
  it('delivers the event after a restart', async () => {
    // The run's database (SQLite or MariaDB), emptied first; no other app is open meanwhile.
    const app = await createTestApp();
    await resetDatabase(app);
    await app.close();
    const env = {
      DATABASE_URL: process.env.E2E_DATABASE_URL!,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SECONDS: '1,1,1,1,1,1,1,1,1,1',
    };
    const receiverPort = await freePort();
    const cli = async (...args: string[]) => {
      const result = await runCli(args, env);
      expect(result.stderr).toBe('');
      return result.stdout.trim();
    };
    await cli('catalog', 'import', join(__dirname, '..', 'examples', 'catalog.json'));
    await cli('users', 'create', '--name', 'kim');
    const token = await cli('tokens', 'issue', '--user', 'kim', '--scopes', 'ratings.anime');
    const webhook = JSON.parse(
      await cli('webhooks', 'create', '--url', `http://127.0.0.1:${receiverPort}/hook`),
    ) as CreatedWebhook;

    const serve = async () => {
      const port = await freePort();
      const server = startServer({
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'error',
      });
      await eventually(() =>
        fetch(`http://127.0.0.1:${port}/health/live`).then(
          (response) => response.status === 200,
          () => false,
        ),
      );
      return { ...server, port };
    };

    // The receiver is not listening yet: whatever the first server attempts fails.
    const first = await serve();
    const put = await fetch(`http://127.0.0.1:${first.port}/v1/my/anime/1/ratings`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'user-agent': 'ListSync/2.1.0 (admin@listsync.example)',
      },
      body: JSON.stringify({ status: 'completed' }),
    });
    first.child.kill('SIGKILL');
    expect(put.status).toBe(200);
    await exitOf(first.child);

    const receiver = new Receiver();
    await receiver.listenOn(receiverPort);
    const second = await serve();
    try {
      await eventually(() => receiver.received.length > 0, 90_000);
      const body = verified(receiver.received[0], webhook.secret) as { type: string };
      expect(body.type).toBe('rating.created');
    } finally {
      second.child.kill('SIGTERM');
      await exitOf(second.child);
      await receiver.stop();
    }
  }, 300_000);
});

describe('webhooks: a server killed during an attempt', () => {
  it('leaves the event to another instance, which sends it within 30 s of the claim', async () => {
    const setup = await createTestApp();
    await resetDatabase(setup);
    await importTitles(setup, [anime(1)]);
    const { token } = await createUserWithToken(setup);
    const receiver = new Receiver();
    receiver.respond = () => null;
    const webhook = await webhooksService(setup, { WEBHOOK_ALLOW_PRIVATE: 'true' }).create(
      await receiver.start(),
    );
    // No instance but the one to be killed runs until it has claimed the event.
    await setup.close();

    const port = await freePort();
    const claimer = startServer({
      DATABASE_URL: process.env.E2E_DATABASE_URL!,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      // The longest claim there can be.
      WEBHOOK_TIMEOUT_SECONDS: String(MAX_WEBHOOK_TIMEOUT_SECONDS),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
    });
    let survivor: NestFastifyApplication | undefined;
    try {
      await serverIsLive(port, 60_000);
      const put = await fetch(`http://127.0.0.1:${port}/v1/my/anime/1/ratings`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
        },
        body: JSON.stringify({ status: 'completed' }),
      });
      expect(put.status).toBe(200);
      await eventually(() => receiver.received.length === 1);
      claimer.child.kill('SIGKILL');
      await exitOf(claimer.child);

      survivor = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
      const [claimed] = await survivor
        .get(DataSource)
        .query<{ state: string; leased_by: string | null; lease_until: number | string }[]>(
          'SELECT state, leased_by, lease_until FROM webhook_messages',
        );
      expect(claimed.state).toBe('pending');
      expect(claimed.leased_by).not.toBeNull();
      expect(Number(claimed.lease_until)).toBeGreaterThan(Date.now());

      await eventually(() => receiver.received.length === 2, 60_000);
      const [first, again] = receiver.received;
      expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(verified(again, webhook.secret)).toMatchObject({ type: 'rating.created' });
      // The claim came before the first arrival.
      expect(again.at - first.at).toBeLessThanOrEqual(30_000);
    } finally {
      if (claimer.child.exitCode === null && claimer.child.signalCode === null) {
        claimer.child.kill('SIGKILL');
        await exitOf(claimer.child);
      }
      await survivor?.close();
      await receiver.stop();
    }
  }, 180_000);
});
