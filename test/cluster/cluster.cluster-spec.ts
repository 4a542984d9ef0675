import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sleep, eventually } from '../utils/wait';
import {
  call,
  cli,
  clusterCommand,
  historyOf,
  Instance,
  Json,
  nodeStatus,
  pidOf,
  REDIS_PORTS,
  scoreBody,
  SENTINEL_PORTS,
  sqlOn,
  startInstance,
  startWriters,
  stopInstance,
  userWithToken,
  Write,
} from './cluster-helpers';

/**
 * Contract §23 on a real cluster (npm run test:cluster): three Galera nodes, a Redis primary and
 * replica under three Sentinels (scripts/cluster), two instances (`node dist/main.js`) on two
 * different nodes. The windows checked are the contract's own: 200s again within 15 s of a node's
 * failure, no request waiting more than 30 s, Redis counting again within 10 s of a promotion.
 */
const ROOT = join(__dirname, '..', '..');
const FAILOVER_WINDOW_MS = 15_000;
const LONGEST_WAIT_MS = 30_000;

let a: Instance; // nodes 1, 2, 3
let b: Instance; // nodes 2, 3, 1
let token: string;

afterAll(async () => {
  await Promise.all([stopInstance(a), stopInstance(b)]);
  if (process.env.CLUSTER_LOGS) {
    for (const instance of [a, b]) {
      appendFileSync(`${process.env.CLUSTER_LOGS}-${instance.name}.log`, instance.output());
    }
  }
});

/** Every answer is 200 or 503 (503 with Retry-After, problem+json), none waited 30 s or more. */
function expectOnly200Or503(writes: Write[]): void {
  for (const { answer } of writes) {
    if (answer.status === 503) {
      expect(answer.headers?.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.headers?.get('content-type')).toContain('application/problem+json');
    } else {
      expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
    }
    expect(answer.ms).toBeLessThan(LONGEST_WAIT_MS);
  }
}

/** Requests that started more than 15 s after the failure all answered 200. */
function expect200sAfterWindow(writes: Write[], failedAt: number): void {
  if (process.env.CLUSTER_TIMELINE) {
    const lines = writes.map(
      (w) =>
        `${w.instance} +${w.answer.startedAt - failedAt} ${w.answer.ms}ms ${w.answer.status} ${w.titleId}:${w.score}`,
    );
    appendFileSync(process.env.CLUSTER_TIMELINE, lines.join('\n') + '\n----\n');
  }
  const late = writes.filter((write) => write.answer.startedAt > failedAt + FAILOVER_WINDOW_MS);
  expect(late.length).toBeGreaterThan(10);
  expect(late.filter((write) => write.answer.status !== 200).map((w) => w.answer.status)).toEqual(
    [],
  );
}

/** Every write answered 200 has its history event, read through each instance. */
async function expectNothingAcknowledgedLost(writes: Write[], through: Instance[]): Promise<void> {
  for (const instance of through) {
    const events = await historyOf(instance, token);
    const recorded = new Set(events.map((event) => `${event.title_id}:${event.score?.to}`));
    const lost = writes
      .filter((write) => write.answer.status === 200)
      .filter((write) => !recorded.has(`${write.titleId}:${write.score}`));
    expect(lost).toEqual([]);
  }
}

async function profileOf(instance: Instance): Promise<Json> {
  const answer = await call(instance, 'GET', '/v1/my/profile', token);
  expect(answer.status).toBe(200);
  return answer.body.statistics.anime;
}

async function listOf(instance: Instance): Promise<Json[]> {
  const answer = await call(instance, 'GET', '/v1/my/anime/ratings', token);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** Profile statistics agree with the list on both instances, and the lists are the same. */
async function expectExactEverywhere(): Promise<void> {
  const [listA, listB] = [await listOf(a), await listOf(b)];
  expect(listB).toEqual(listA);
  const scored = listA.map((e) => e.public_rating * 10 + e.public_fraction).filter((s) => s > 0);
  const average =
    scored.length === 0 ? 0 : Math.round(scored.reduce((x, y) => x + y, 0) / scored.length);
  for (const instance of [a, b]) {
    expect(await profileOf(instance)).toMatchObject({
      watching: listA.filter((e) => e.status === 'ongoing').length,
      average,
    });
  }
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

async function waitSynced(n: number): Promise<void> {
  await eventually(async () => (await nodeStatus(n))?.ready === true, 120_000, `node${n} synced`);
}

describe('two instances on two nodes of a Galera cluster', () => {
  it('start together on an empty database and apply each migration once (the lease row, not GET_LOCK)', async () => {
    [a, b] = await Promise.all([startInstance('a', [1, 2, 3]), startInstance('b', [2, 3, 1])]);
    const applied = await sqlOn<{ name: string; n: number }>(
      3,
      'SELECT name, COUNT(*) AS n FROM migrations GROUP BY name',
    );
    const { MIGRATIONS } = await import(join(ROOT, 'dist', 'database', 'typeorm-options.js'));
    expect(applied.length).toBe(MIGRATIONS.length);
    expect(applied.filter((row) => Number(row.n) !== 1)).toEqual([]);
    expect(a.output()).toContain('Working through Galera node 127.0.0.1:4306');
    expect(b.output()).toContain('Working through Galera node 127.0.0.1:4307');
    for (const output of [a.output(), b.output()])
      expect(output).not.toMatch(/already exists|"level":50/);

    await cli(['catalog', 'import', join(ROOT, 'examples', 'catalog.json')]);
    token = await userWithToken('alice');
  });

  it('concurrent writers to one list through both instances: all 200, one entry per title, exact statistics, one history event per write, a changes feed with each write once', async () => {
    const titles = Array.from({ length: 8 }, (_, i) => i + 1);
    // The changes feed, read through both instances in turn while the writes go on.
    let reading = true;
    let cursor = '';
    const seen = new Map<string, number>();
    const mirror = new Map<number, number>();
    const readFeed = async (instance: Instance) => {
      for (;;) {
        const answer = await call(instance, 'GET', `/v1/my/anime/changes?limit=50${cursor}`, token);
        expect(answer.status).toBe(200);
        for (const entry of answer.body.changes) {
          const score = entry.public_rating * 10 + entry.public_fraction;
          const key = `${entry.id}:${score}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
          mirror.set(entry.id, score);
        }
        for (const gone of answer.body.deleted) mirror.delete(gone.id);
        cursor = `&since=${encodeURIComponent(answer.body.cursor)}`;
        if (!answer.body.has_more) return;
      }
    };
    const reader = (async () => {
      for (let i = 0; reading; i++) {
        await readFeed(i % 2 === 0 ? a : b);
        await sleep(50);
      }
    })();

    const writers = startWriters([a, b], token, titles, 3);
    await sleep(12_000);
    const writes = await writers.stop();
    reading = false;
    await reader;
    await readFeed(b);

    expect(writes.length).toBeGreaterThan(50);
    expect(
      writes.filter((w) => w.answer.status !== 200).map((w) => [w.answer.status, w.answer.body]),
    ).toEqual([]);
    const list = await listOf(a);
    expect(list.map((entry) => entry.id)).toEqual(titles);
    await expectExactEverywhere();

    // One event per write; per title, ids grow with the commits (each event starts where the last ended).
    const events = await historyOf(b, token);
    expect(events.length).toBe(writes.length);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    for (const titleId of titles) {
      const chain = events.filter((event) => event.title_id === titleId).reverse();
      chain.forEach((event, i) => {
        expect(event.score.from).toBe(i === 0 ? null : chain[i - 1].score.to);
      });
      const entry = list.find((e) => e.id === titleId);
      expect(chain[chain.length - 1].score.to).toBe(
        entry.public_rating * 10 + entry.public_fraction,
      );
    }

    // The feed: no write twice, and what it gave adds up to the list.
    expect([...seen.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(Object.fromEntries(mirror)).toEqual(
      Object.fromEntries(list.map((e) => [e.id, e.public_rating * 10 + e.public_fraction])),
    );
  });

  it('causal reads: a write through one instance is read at once through the other', async () => {
    const stale: string[] = [];
    for (let i = 0; i < 150; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const notes = `causal ${i}`;
      const put = await call(writer, 'PUT', '/v1/my/anime/33/ratings', token, {
        status: 'ongoing',
        notes,
      });
      expect(put.status).toBe(200);
      const read = await call(reader, 'GET', '/v1/my/anime/33/ratings', token);
      expect(read.status).toBe(200);
      if (read.body[0]?.notes !== notes) stale.push(`${notes}: read ${read.body[0]?.notes}`);
    }
    expect(stale).toEqual([]);
  });

  it('a node killed (SIGKILL) mid-writes: 503 at worst, 200s again within 15 s, nothing acknowledged lost, the node rejoins', async () => {
    const writers = startWriters([a, b], token, range(9, 18), 2);
    await sleep(3000);
    const failedAt = Date.now();
    process.kill(pidOf('node1'), 'SIGKILL');
    let writes: Write[];
    try {
      await sleep(FAILOVER_WINDOW_MS + 5000);
      writes = await writers.stop();
    } finally {
      await clusterCommand('start-node', '1');
    }
    expect200sAfterWindow(writes, failedAt);
    expectOnly200Or503(writes);
    await expectNothingAcknowledgedLost(writes, [a, b]);
    await expectExactEverywhere();

    await waitSynced(1);
    expect((await nodeStatus(1))?.size).toBe(3);
  });

  it('a node stopped (SIGSTOP) for 15 s: 503 at worst, 200s again within 15 s, nothing acknowledged lost, the node rejoins', async () => {
    const pid = pidOf('node2');
    const writers = startWriters([a, b], token, range(19, 28), 2);
    await sleep(3000);
    const failedAt = Date.now();
    process.kill(pid, 'SIGSTOP');
    try {
      await sleep(15_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await sleep(5000);
    const writes = await writers.stop();
    expect200sAfterWindow(writes, failedAt);
    expectOnly200Or503(writes);
    await expectNothingAcknowledgedLost(writes, [a, b]);
    await waitSynced(2);
    expect((await nodeStatus(2))?.size).toBe(3);
    await expectExactEverywhere();
  });

  it('an instance killed (SIGKILL) mid-writes: the other serves on, nothing acknowledged lost', async () => {
    const writers = startWriters([a, b], token, range(29, 33), 2);
    await sleep(3000);
    if (process.env.CLUSTER_LOGS) writeFileSync(`${process.env.CLUSTER_LOGS}-a.log`, a.output());
    a.child.kill('SIGKILL');
    await sleep(5000);
    const writes = await writers.stop();

    const throughB = writes.filter((write) => write.instance === 'b');
    expect(throughB.filter((w) => w.answer.status !== 200).map((w) => w.answer.status)).toEqual([]);
    await expectNothingAcknowledgedLost(writes, [b]);

    a = await startInstance('a', [1, 2, 3]);
    await expectNothingAcknowledgedLost(writes, [a]);
    await expectExactEverywhere();
  });

  it('webhooks: an instance killed mid-delivery loses no event, none is invented, at most 8 attempts at once across the cluster', async () => {
    const receiver = await startReceiver(400);
    try {
      const created = JSON.parse(
        await cli(['webhooks', 'create', '--url', `http://127.0.0.1:${receiver.port}/hook`]),
      ) as { id: string };
      // Writes through both instances: manga titles 1–12, each score once (each write one event).
      const attempts: { key: string; status: number }[] = [];
      const writes = Array.from({ length: 48 }, (_, i) => ({
        titleId: (i % 12) + 1,
        score: 11 + Math.floor(i / 12),
      }));
      await Promise.all(
        [a, b].map(async (instance, side) => {
          for (const write of writes.filter((_, i) => i % 2 === side)) {
            const answer = await call(
              instance,
              'PUT',
              `/v1/my/manga/${write.titleId}/ratings`,
              token,
              scoreBody(write.score),
            );
            attempts.push({ key: `${write.titleId}:${write.score}`, status: answer.status });
          }
        }),
      );
      expect(attempts.filter((attempt) => attempt.status !== 200)).toEqual([]);
      await eventually(() => receiver.events.size > 0, 10_000, 'a first delivery');
      const killedAt = Date.now();
      a.child.kill('SIGKILL');

      await eventually(
        () =>
          attempts.every(({ key }) =>
            [...receiver.events.values()].some((event) => event.key === key),
          ),
        60_000,
        'every event delivered',
      );
      expect(receiver.events.size).toBe(attempts.length);
      expect([...receiver.events.values()].map((event) => event.key).sort()).toEqual(
        attempts.map((attempt) => attempt.key).sort(),
      );
      // Sent twice only when the killed instance had it in flight.
      const twice = [...receiver.events.values()].filter((event) => event.deliveries > 1);
      expect(twice.every((event) => event.firstAt < killedAt + 1000)).toBe(true);
      expect(twice.length).toBeLessThanOrEqual(8);
      expect(receiver.maxInFlight()).toBeLessThanOrEqual(8);
      expect(receiver.maxInFlight()).toBeGreaterThan(1);
      await cli(['webhooks', 'delete', created.id]);
    } finally {
      await receiver.close();
      if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill('SIGKILL');
      a = await startInstance('a', [1, 2, 3]);
    }
  });

  it('the Redis primary killed: served without 5xx, the Sentinels promote the replica, limits count again within 10 s on both instances', async () => {
    const remaining = async (instance: Instance) => {
      const answer = await call(instance, 'GET', '/v1/my/anime/1/ratings', token);
      expect(answer.status).toBe(200);
      return Number(answer.headers?.get('ratelimit-remaining'));
    };
    const counting = async (instance: Instance) => {
      const first = await remaining(instance);
      return (await remaining(instance)) < first;
    };
    expect(await counting(a)).toBe(true);
    expect(await counting(b)).toBe(true);

    process.kill(pidOf('redis-primary'), 'SIGKILL');
    const during = await Promise.all(
      [a, b, a, b].map((i) => call(i, 'GET', '/v1/my/anime/1/ratings', token)),
    );
    expect(during.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const promotedAt = await waitForPromotion();
    const deadline = promotedAt + 10_000;
    for (const instance of [a, b]) {
      await eventually(
        () => counting(instance),
        deadline - Date.now(),
        `${instance.name} counting`,
      );
      const health = await call(instance, 'GET', '/health', token);
      expect(health.body).toEqual({ status: 'ok' });
    }
    expect(Date.now()).toBeLessThanOrEqual(deadline);
  });
});

interface Received {
  key: string;
  deliveries: number;
  firstAt: number;
}

/** A webhook receiver answering 200 after `holdMs`; events by webhook-id, the peak of requests at once. */
async function startReceiver(holdMs: number): Promise<{
  port: number;
  events: Map<string, Received>;
  maxInFlight: () => number;
  close: () => Promise<void>;
}> {
  const events = new Map<string, Received>();
  let inFlight = 0;
  let peak = 0;
  const server = createServer((request, response) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const { data } = JSON.parse(body) as { data: { title_id: number; entry: Json } };
      const key = `${data.title_id}:${data.entry.public_rating * 10 + data.entry.public_fraction}`;
      const known = events.get(id);
      if (known) known.deliveries++;
      else events.set(id, { key, deliveries: 1, firstAt: Date.now() });
      setTimeout(() => {
        inFlight--;
        response.end();
      }, holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    events,
    maxInFlight: () => peak,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls a Sentinel until it names the replica as the primary; returns when it did. */
async function waitForPromotion(): Promise<number> {
  const { default: Redis } = await import('ioredis');
  const sentinel = new Redis({ port: SENTINEL_PORTS[0], host: '127.0.0.1', lazyConnect: true });
  try {
    await sentinel.connect();
    for (;;) {
      const [, port] = (await sentinel.call(
        'SENTINEL',
        'get-master-addr-by-name',
        'ratings',
      )) as string[];
      if (Number(port) === REDIS_PORTS.replica) return Date.now();
      await sleep(100);
    }
  } finally {
    sentinel.disconnect();
  }
}
